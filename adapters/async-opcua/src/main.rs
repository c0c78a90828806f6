//! uabench adapter for async-opcua (adapters/SPEC.md, contract version 8): `capabilities`,
//! `server --config F`, `client --config F`. Stdout carries only the protocol's JSON lines; the
//! SDK's logs (the `log`/`tracing` facades) go nowhere unless RUST_LOG asks for them on stderr.

mod address_space;
mod client;
mod clock;
mod config;
mod connection;
mod histogram;
mod json_out;
mod model;
mod read_back;
mod recorder;
mod request_workload;
mod security;
mod server;
mod session;
mod subscribe;
mod tick_check;
mod timeline;
mod verify;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod verification_vectors;

use std::path::PathBuf;

use serde_json::json;

use json_out::{emit, fail, Failure};

pub const SDK_ID: &str = "async-opcua";
/// The async-opcua version linked into this binary: build.rs reads it from Cargo.lock.
pub const SDK_VERSION: &str = env!("ASYNC_OPCUA_VERSION");

fn capabilities() -> serde_json::Value {
    let mut security = vec![json!({"policy": "None", "mode": "None"})];
    for policy in &security::POLICIES[1..] {
        for mode in ["Sign", "SignAndEncrypt"] {
            security.push(json!({"policy": policy, "mode": mode}));
        }
    }
    json!({"sdk": SDK_ID, "version": SDK_VERSION, "language": "Rust", "roles": ["server", "client"],
           "workloads": ["read", "write", "subscribe"], "security": security})
}

fn config_path(args: &[String]) -> Result<PathBuf, Failure> {
    match args {
        [flag, file] if flag == "--config" => Ok(PathBuf::from(file)),
        _ => Err(Failure::Config("config: usage: run server|client --config FILE".into())),
    }
}

/// Resolves on SIGTERM or SIGINT.
pub async fn wait_for_stop() {
    use tokio::signal::unix::{signal, SignalKind};
    let mut term = signal(SignalKind::terminate()).expect("SIGTERM handler");
    let mut int = signal(SignalKind::interrupt()).expect("SIGINT handler");
    tokio::select! {
        _ = term.recv() => {}
        _ = int.recv() => {}
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if std::env::var_os("RUST_LOG").is_some() {
        env_logger_to_stderr();
    }
    let result = match args.first().map(String::as_str) {
        Some("capabilities") => {
            emit(&capabilities());
            Ok(())
        }
        Some("server") => (|| {
            let raw = config::load_config(&config_path(&args[1..])?)?;
            let config = config::server_config(&raw)?;
            runtime().block_on(async {
                // A signal during start-up still ends the server with status 0. `biased`: the
                // stop future is polled first, so its SIGTERM/SIGINT handlers are installed
                // before the server can print ready (select! otherwise polls in a random order,
                // and a SIGTERM right after ready killed the process with the default action).
                tokio::select! {
                    biased;
                    _ = wait_for_stop() => Ok(()),
                    result = server::run_server(config) => result,
                }
            })
        })(),
        Some("client") => (|| {
            let raw = config::load_config(&config_path(&args[1..])?)?;
            let config = config::client_config(&raw)?;
            let record = runtime().block_on(client::run_client(config))?;
            emit(&record);
            Ok(())
        })(),
        Some(role @ ("publisher" | "subscriber")) => Err(Failure::NotSupported(format!(
            "role '{role}': async-opcua has no PubSub (no UADP publisher or subscriber API)"
        ))),
        other => {
            eprintln!("usage: run capabilities | run server --config FILE | run client --config FILE");
            Err(Failure::Config(format!(
                "config: unknown command '{}'",
                other.unwrap_or("")
            )))
        }
    };
    match result {
        // Exit at once: SDK tasks still winding down must not hold the process.
        Ok(()) => std::process::exit(0),
        Err(failure) => fail(&failure),
    }
}

/// RUST_LOG=... prints the SDK's `log` records on stderr, for diagnosing a run by hand.
fn env_logger_to_stderr() {
    struct Stderr;
    impl log::Log for Stderr {
        fn enabled(&self, _: &log::Metadata) -> bool {
            true
        }
        fn log(&self, record: &log::Record) {
            eprintln!("{} {}: {}", record.level(), record.target(), record.args());
        }
        fn flush(&self) {}
    }
    let level = match std::env::var("RUST_LOG").unwrap_or_default().as_str() {
        "trace" => log::LevelFilter::Trace,
        "debug" => log::LevelFilter::Debug,
        "info" => log::LevelFilter::Info,
        "error" => log::LevelFilter::Error,
        _ => log::LevelFilter::Warn,
    };
    if log::set_logger(&Stderr).is_ok() {
        log::set_max_level(level);
    }
}
