// Puts the version of async-opcua that Cargo.lock resolved into the binary (ASYNC_OPCUA_VERSION),
// so `run capabilities` reports the SDK actually linked, not a constant typed by hand.
use std::fs;

fn main() {
    println!("cargo:rerun-if-changed=Cargo.lock");
    let lock = fs::read_to_string("Cargo.lock").unwrap_or_default();
    let mut version = String::from("unknown");
    let mut in_pkg = false;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            in_pkg = false;
        } else if line == "name = \"async-opcua\"" {
            in_pkg = true;
        } else if in_pkg {
            if let Some(v) = line.strip_prefix("version = \"") {
                version = v.trim_end_matches('"').to_string();
                break;
            }
        }
    }
    println!("cargo:rustc-env=ASYNC_OPCUA_VERSION={version}");
}
