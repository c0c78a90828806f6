//! The stdout protocol of SPEC §2: one JSON object per line, flushed at once, nothing else on
//! stdout; the error event and its exit status.

use std::io::Write;

use serde_json::{json, Value};

/// What stopped a role, by the error kinds of SPEC §2.
#[derive(Debug)]
pub enum Failure {
    Config(String),
    NotSupported(String),
    Connect(String),
    Runtime(String),
}

impl Failure {
    pub fn kind(&self) -> &'static str {
        match self {
            Failure::Config(_) => "config",
            Failure::NotSupported(_) => "not_supported",
            Failure::Connect(_) => "connect",
            Failure::Runtime(_) => "runtime",
        }
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Config(_) => 2,
            Failure::NotSupported(_) => 3,
            Failure::Connect(_) | Failure::Runtime(_) => 1,
        }
    }

    pub fn message(&self) -> &str {
        match self {
            Failure::Config(m) | Failure::NotSupported(m) | Failure::Connect(m) | Failure::Runtime(m) => m,
        }
    }
}

pub fn emit(event: &Value) {
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{event}");
    let _ = out.flush();
}

/// Points stdout (fd 1) at stderr until dropped, for SDK code that prints on stdout where SPEC §2
/// allows only the protocol's lines. Nothing of the adapter emits while one is alive.
pub struct StdoutToStderr {
    saved: libc::c_int,
}

impl StdoutToStderr {
    pub fn new() -> Self {
        let _ = std::io::stdout().flush();
        // SAFETY: dup/dup2 on the process's own standard descriptors; a failure (-1) leaves
        // stdout as it was.
        let saved = unsafe { libc::dup(libc::STDOUT_FILENO) };
        if saved >= 0 {
            unsafe { libc::dup2(libc::STDERR_FILENO, libc::STDOUT_FILENO) };
        }
        StdoutToStderr { saved }
    }
}

impl Drop for StdoutToStderr {
    fn drop(&mut self) {
        let _ = std::io::stdout().flush();
        if self.saved >= 0 {
            // SAFETY: `saved` is the descriptor dup() returned above, restored then closed once.
            unsafe {
                libc::dup2(self.saved, libc::STDOUT_FILENO);
                libc::close(self.saved);
            }
        }
    }
}

/// Prints the error event (the detail also on stderr) and exits with the kind's status.
pub fn fail(failure: &Failure) -> ! {
    emit(&json!({"event": "error", "kind": failure.kind(), "message": failure.message()}));
    eprintln!("{}: {}", failure.kind(), failure.message());
    std::process::exit(failure.exit_code());
}
