//! The golden vectors of contract/vectors run through this adapter's own modules (`cargo test`),
//! plus a few bad configs through the real binary (the error event and exit 2).

use std::path::PathBuf;

use serde_json::Value;

use crate::config::{self, parse_config_bytes, RawConfig};
use crate::histogram::{bucket, Histogram};
use crate::model;
use crate::verify::verify_value;

pub(crate) fn vectors(name: &str) -> Value {
    let path = config::schema_dir().join(format!("../vectors/{name}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).expect("vectors")).expect("vector JSON")
}

/// A config as a file's bytes would give it (numbers written as in the vector file: `2.0`
/// stays written with a fraction).
fn raw(config: &Value) -> RawConfig {
    let text = vector_text(config);
    parse_config_bytes(text.as_bytes(), "config.json").expect("a readable config")
}

/// serde_json writes 2.0 as "2.0" and 2 as "2", as the vector file does.
fn vector_text(config: &Value) -> String {
    config.to_string()
}

fn check(role: &str, raw: &RawConfig) -> Result<Value, String> {
    let result = match role {
        "server" => config::server_config(raw).map(|_| Value::Null),
        "client" => config::client_config(raw).map(|c| c.filled),
        other => config::schemas().and_then(|s| s.check(other, raw)),
    };
    result.map_err(|f| f.message().to_string())
}

#[test]
fn bad_config_vectors_are_refused_naming_the_key() {
    let configs = vectors("configs");
    for vector in configs["bad"].as_array().unwrap() {
        let role = vector["role"].as_str().unwrap();
        if role != "server" && role != "client" {
            continue; // no PubSub roles: those are exit 3 whatever the config
        }
        let key = vector["key"].as_str().unwrap();
        match check(role, &raw(&vector["config"])) {
            Ok(_) => panic!("{role} {} accepted", vector["config"]),
            Err(message) => assert!(message.contains(key), "{message} does not name '{key}'"),
        }
    }
}

#[test]
fn the_schema_alone_rejects_what_the_vectors_say() {
    let configs = vectors("configs");
    let schemas = config::schemas().unwrap();
    for vector in configs["bad"].as_array().unwrap() {
        let role = vector["role"].as_str().unwrap();
        let rejected = !schemas.problems(role, &vector["config"]).is_empty();
        assert_eq!(
            rejected,
            vector["schema"].as_bool().unwrap(),
            "{role} {}",
            vector["config"]
        );
    }
}

#[test]
fn good_config_vectors_are_filled_in() {
    let configs = vectors("configs");
    let schemas = config::schemas().unwrap();
    for vector in configs["good"].as_array().unwrap() {
        let role = vector["role"].as_str().unwrap();
        let raw = raw(&vector["config"]);
        let filled = schemas
            .check(role, &raw)
            .unwrap_or_else(|f| panic!("{role} {}: {}", vector["config"], f.message()));
        assert_eq!(filled, vector["filled"], "{role} {}", vector["config"]);
        check(role, &raw).unwrap();
        assert!(schemas.problems(role, &vector["filled"]).is_empty());
    }
}

fn file_bytes(parts: &Value) -> Vec<u8> {
    let mut bytes = Vec::new();
    for part in parts.as_array().unwrap() {
        let hex = part[0].as_str().unwrap();
        let chunk: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        for _ in 0..part[1].as_u64().unwrap() {
            bytes.extend_from_slice(&chunk);
        }
    }
    bytes
}

#[test]
fn unreadable_config_files_are_refused_saying_why() {
    let configs = vectors("configs");
    for vector in configs["unreadable"].as_array().unwrap() {
        let says = vector["says"].as_str().unwrap();
        let bytes = file_bytes(&vector["parts"]);
        let message = match parse_config_bytes(&bytes, "config.json") {
            Err(f) => f.message().to_string(),
            Ok(raw) => check(vector["role"].as_str().unwrap(), &raw).expect_err("refused for its unknown key"),
        };
        assert!(
            message.contains(says),
            "{}: {message} does not say '{says}'",
            vector["name"]
        );
    }
}

fn binary() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("run")
}

#[test]
fn bad_configs_through_the_real_binary() {
    let configs = vectors("configs");
    let dir = std::env::temp_dir().join(format!("uabench-async-opcua-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = configs["bad"].as_array().unwrap();
    let picked = bad
        .iter()
        .filter(|v| v["role"] == "server")
        .take(2)
        .chain(bad.iter().filter(|v| v["role"] == "client").take(3));
    for vector in picked.chain(std::iter::once(&configs["unreadable"][0])) {
        let file = dir.join("config.json");
        if vector.get("parts").is_some() {
            std::fs::write(&file, file_bytes(&vector["parts"])).unwrap();
        } else {
            std::fs::write(&file, vector_text(&vector["config"])).unwrap();
        }
        let role = vector["role"].as_str().unwrap();
        let output = std::process::Command::new(binary())
            .args([role, "--config", file.to_str().unwrap()])
            .output()
            .unwrap();
        if !output.status.success()
            && output.status.code() == Some(1)
            && String::from_utf8_lossy(&output.stdout).contains("not built")
        {
            eprintln!("binary not built: skipped");
            return;
        }
        assert_eq!(output.status.code(), Some(2), "{role} {vector}");
        let event: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(event["event"], "error");
        assert_eq!(event["kind"], "config");
        let wanted = vector.get("key").or(vector.get("says")).unwrap().as_str().unwrap();
        assert!(event["message"].as_str().unwrap().contains(wanted), "{event}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn histogram_buckets_and_sparse_lists() {
    let h = vectors("histogram");
    for b in h["buckets"].as_array().unwrap() {
        let expected = b["bucket"].as_u64().unwrap();
        for key in ["value_ns", "low", "high"] {
            assert_eq!(bucket(b[key].as_u64().unwrap()), expected, "{b}");
        }
        assert!(bucket(b["high"].as_u64().unwrap() + 1) > expected);
    }
    for case in h["histograms"].as_array().unwrap() {
        let mut histogram = Histogram::default();
        for v in case["values_ns"].as_array().unwrap() {
            histogram.record(v.as_i64().unwrap());
        }
        let expected: Vec<(u64, u64)> = case["sparse"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_u64().unwrap(), p[1].as_u64().unwrap()))
            .collect();
        assert_eq!(histogram.pairs(), expected);
    }
}

fn check_pattern<T: Copy + Into<f64>>(actual: &[T], vector: &Value, bytes: Vec<u8>) {
    use sha2::{Digest, Sha256};
    assert_eq!(actual.len() as u64, vector["length"].as_u64().unwrap());
    let sum: f64 = actual.iter().map(|v| (*v).into()).sum();
    assert_eq!(sum, vector["sum"].as_f64().unwrap());
    for sample in vector["samples"].as_array().unwrap() {
        let k = sample[0].as_u64().unwrap() as usize;
        assert_eq!(actual[k].into(), sample[1].as_f64().unwrap(), "element {k}");
    }
    let digest: String = Sha256::digest(&bytes).iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(digest, vector["sha256_le"].as_str().unwrap());
}

#[test]
fn page_sdd_image_and_the_double_arrays() {
    let v = vectors("values");
    let page = model::page();
    check_pattern(&page, &v["page"], page.iter().flat_map(|x| x.to_le_bytes()).collect());
    check_pattern(&model::sdd(), &v["sdd"], model::sdd());
    check_pattern(&model::image(), &v["image"], model::image());
    for (name, length) in model::ARRAYS {
        let values = model::double_array(length);
        check_pattern(
            &values,
            &v["arrays"][name],
            values.iter().flat_map(|x| x.to_le_bytes()).collect(),
        );
    }
    assert_eq!(model::REAL_VALUE as f64, v["real"].as_f64().unwrap());
}

#[test]
fn signal_values_and_their_verification() {
    use opcua::types::Variant;
    let v = vectors("values");
    for s in v["signal"].as_array().unwrap() {
        let value = model::signal(s["index"].as_u64().unwrap(), s["tick"].as_u64().unwrap());
        assert_eq!(value as f64, s["value"].as_f64().unwrap(), "{s}");
    }
    for s in v["signal_tick"].as_array().unwrap() {
        let value = Variant::Float(s["value"].as_f64().unwrap() as f32);
        assert_eq!(
            crate::verify::tick_of("Signal_0", Some(&value)).map(u64::from),
            s["tick"].as_u64(),
            "{s}"
        );
    }
    for case in v["verify"].as_array().unwrap() {
        let node = case["node"].as_str().unwrap();
        let value = case["value"].as_f64().unwrap();
        let variant = if node == "Tick" {
            if (0.0..4294967296.0).contains(&value) && value.fract() == 0.0 {
                Variant::UInt32(value as u32)
            } else {
                Variant::Double(value)
            }
        } else if node.starts_with("Signal_") || node == "Real" {
            Variant::Float(value as f32)
        } else {
            Variant::Double(value)
        };
        // A vector value a Float cannot hold exactly is not valid as a Float either.
        let exact = !matches!(variant, Variant::Float(f) if f as f64 != value);
        let valid = exact && verify_value(node, Some(&variant)).is_none();
        assert_eq!(valid, case["valid"].as_bool().unwrap(), "{node} = {value}");
    }
}

#[test]
fn write_values_and_the_nodes_of_each_request() {
    let v = vectors("values");
    for w in v["write_value"].as_array().unwrap() {
        let value = model::write_value(
            w["session"].as_u64().unwrap() as usize,
            w["request"].as_u64().unwrap(),
            w["nodes_per_request"].as_u64().unwrap() as usize,
            w["position"].as_u64().unwrap() as usize,
        );
        assert_eq!(value, w["value"].as_f64().unwrap(), "{w}");
    }
    for w in v["write_verification_value"].as_array().unwrap() {
        let value =
            model::write_verification_value(w["pattern"].as_u64().unwrap(), w["position"].as_u64().unwrap() as usize);
        assert_eq!(value, w["value"].as_f64().unwrap());
    }
    for r in v["request_nodes"].as_array().unwrap() {
        let nodes: Vec<&str> = r["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        let got: Vec<&str> = model::request_positions(
            nodes.len(),
            r["request"].as_u64().unwrap(),
            r["nodes_per_request"].as_u64().unwrap() as usize,
        )
        .map(|i| nodes[i])
        .collect();
        let want: Vec<&str> = r["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n.as_str().unwrap())
            .collect();
        assert_eq!(got, want, "{r}");
    }
}

#[test]
fn lifetime_count_matches_the_reference() {
    use crate::subscribe::{keep_alive_count, lifetime_count};
    // uabench_contract.lifetime_count(60000, 100, 100) = max(300, 600) = 600
    assert_eq!(lifetime_count(60_000.0, 100.0, keep_alive_count(100.0)), 600);
    // at 1 ms: max(3 * 10000, 60000) = 60000
    assert_eq!(lifetime_count(60_000.0, 1.0, keep_alive_count(1.0)), 60_000);
    assert_eq!(lifetime_count(60_000.0, 60_000.0, keep_alive_count(60_000.0)), 9);
}

#[test]
fn tick_steps_count_gaps_and_duplicates() {
    use crate::tick_check::tick_step;
    assert_eq!(tick_step(5, 6), (0, 0));
    assert_eq!(tick_step(5, 9), (3, 0));
    assert_eq!(tick_step(5, 5), (0, 1));
    assert_eq!(tick_step(16383, 1), (1, 0));
    assert_eq!(tick_step(9, 5), (0, 0));
}
