//! contract/vectors/verification.json (`cargo test`): the rules this client implements by hand
//! (SPEC §3 R1–R4, W1's judgement and C, the subscription's lifetime count; SPEC §6 the
//! timeline), replayed through the adapter's own modules with async-opcua's own DataValue,
//! Variant, DateTime and StatusCode. The file's "description" and contract/README.md say what a
//! vector holds; a failing test names each vector that broke and how.

use std::collections::HashMap;

use opcua::types::{DataValue, DateTime, StatusCode, Variant};
use serde_json::Value;

use crate::read_back::{judge_read_back, Layout};
use crate::request_workload::InFlight;
use crate::subscribe::lifetime_count;
use crate::tests::vectors;
use crate::tick_check::{ticks_advanced, TickVerification};
use crate::timeline::Timeline;

/// The sections replayed below: a section added to the file fails until it is replayed here.
const SECTIONS: [&str; 5] = ["read", "read_back", "lowest_in_flight", "lifetime", "timeline"];
/// 1970-01-01 in DateTime ticks (100 ns since 1601), the wire's encoding of a DateTime.
const UNIX_EPOCH_TICKS: i64 = 116_444_736_000_000_000;

#[test]
fn every_section_is_replayed() {
    let file = vectors("verification");
    let mut sections: Vec<&str> = file
        .as_object()
        .expect("an object")
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "description")
        .collect();
    sections.sort_unstable();
    let mut replayed = SECTIONS.to_vec();
    replayed.sort_unstable();
    assert_eq!(sections, replayed);
}

/// Runs `check` on every vector of `section` and fails listing each broken one by its name
/// (a vector without one, a lifetime's, by its JSON), with what `check` found.
fn replay(section: &str, check: impl Fn(&Value) -> Vec<String>) {
    let file = vectors("verification");
    let cases = file[section].as_array().expect(section);
    assert!(!cases.is_empty(), "no {section} vectors");
    let problems: Vec<String> = cases
        .iter()
        .flat_map(|case| {
            let name = case["name"].as_str().map_or_else(|| case.to_string(), str::to_string);
            check(case)
                .into_iter()
                .map(move |problem| format!("{section} {name:?}: {problem}"))
        })
        .collect();
    assert!(
        problems.is_empty(),
        "{} problems in {} {section} vectors:\n{}",
        problems.len(),
        cases.len(),
        problems.join("\n")
    );
}

fn int(value: &Value) -> i64 {
    value.as_i64().unwrap_or_else(|| panic!("not an integer: {value}"))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .expect("a list")
        .iter()
        .map(|s| s.as_str().expect("a string").to_string())
        .collect()
}

/// The DataValue async-opcua would decode: `value` of the built-in type `type_name` (null: no
/// value), the SourceTimestamp `source_us` µs after 1970 (null: none), the StatusCode `status`.
fn data_value(type_name: &str, value: &Value, source_us: &Value, status: u32) -> DataValue {
    let value = value.as_f64().map(|v| match type_name {
        "UInt32" => Variant::UInt32(v as u32),
        "Float" => Variant::Float(v as f32),
        "Double" => Variant::Double(v),
        other => panic!("no {other} in the vectors"),
    });
    DataValue {
        value,
        status: Some(StatusCode::from(status)),
        source_timestamp: source_us.as_i64().map(|us| DateTime::from(UNIX_EPOCH_TICKS + us * 10)),
        ..DataValue::default()
    }
}

/// None when `failure` is what the vector's `fails[i]` says (null: none; else a message holding
/// every fragment), else the difference.
fn unkept(failure: Option<&str>, fragments: &Value) -> Option<String> {
    let kept = match (failure, fragments.as_array()) {
        (None, None) => true,
        (Some(message), Some(fragments)) => fragments
            .iter()
            .all(|f| message.contains(f.as_str().expect("a fragment"))),
        _ => false,
    };
    (!kept).then(|| format!("got {failure:?}, expected {fragments}"))
}

/// R1–R4: each session's TickVerification as the read workload drives it (request_workload.rs:
/// sent_after() kept at the send, response_tick() and judge() on the response).
fn read(case: &Value) -> Vec<String> {
    let nodes = strings(&case["nodes"]);
    let mut sessions: Vec<TickVerification> = (0..int(&case["sessions"]))
        .map(|_| TickVerification::new(&nodes))
        .collect();
    let mut kept: HashMap<&str, Option<i64>> = HashMap::new();
    let mut problems = Vec::new();
    for (number, step) in case["steps"].as_array().expect("steps").iter().enumerate() {
        if let Some(send) = step.get("send") {
            let high_water = sessions[int(&send["session"]) as usize].sent_after();
            kept.insert(send["request"].as_str().expect("a request"), high_water);
            continue;
        }
        let response = &step["response"];
        let state = &mut sessions[int(&response["session"]) as usize];
        // A null request was sent before any tick arrived: nothing to judge R2 by.
        let sent_after = response["request"]
            .as_str()
            .and_then(|request| kept.remove(request).expect("a request sent before"));
        let first = int(&response["first"]) as usize;
        let values = response["values"].as_array().expect("values");
        let data_values: Vec<DataValue> = values
            .iter()
            .map(|v| data_value(v["type"].as_str().expect("a type"), &v["value"], &v["source_us"], 0))
            .collect();
        let tick = state.response_tick(first, &data_values);
        let received_ns = int(&response["received_us"]) * 1000;
        let measured = response["measured"].as_bool().expect("measured");
        let fails = response["fails"].as_array().expect("fails");
        for (j, (dv, fragments)) in data_values.iter().zip(fails).enumerate() {
            let position = (first + j) % nodes.len();
            assert_eq!(
                values[j]["node"],
                nodes[position].as_str(),
                "a vector's node out of place"
            );
            let failure = state.judge(position, dv, tick, sent_after, received_ns, measured);
            if let Some(problem) = unkept(failure.as_deref(), fragments) {
                problems.push(format!("step {number} value {j}: {problem}"));
            }
        }
    }
    let advanced = ticks_advanced(&sessions.iter().collect::<Vec<_>>());
    if advanced as i64 != int(&case["ticks_advanced"]) {
        problems.push(format!(
            "ticks_advanced {advanced}, expected {}",
            case["ticks_advanced"]
        ));
    }
    problems
}

#[test]
fn read_verification_vectors() {
    replay("read", read);
}

#[test]
fn read_back_vectors() {
    replay("read_back", |case| {
        let nodes = strings(&case["nodes"]);
        let layout = Layout {
            nodes: &nodes,
            sessions: int(&case["sessions"]) as usize,
            nodes_per_request: int(&case["nodes_per_request"]) as usize,
        };
        let status = int(&case["status_code"]) as u32;
        let dv = data_value(
            case["type"].as_str().expect("a type"),
            &case["value"],
            &Value::Null,
            status,
        );
        let node = case["node"].as_str().expect("a node");
        let failure = judge_read_back(
            node,
            &dv,
            &layout,
            int(&case["request"]) as u64,
            int(&case["lowest"]) as u64,
        );
        unkept(failure.as_deref(), &case["fails"]).into_iter().collect()
    });
}

#[test]
fn lowest_in_flight_vectors() {
    replay("lowest_in_flight", |case| {
        let mut requests = InFlight::default();
        let mut problems = Vec::new();
        for (number, step) in case["steps"].as_array().expect("steps").iter().enumerate() {
            let (got, expected) = if let Some(k) = step.get("sent") {
                // The vectors number requests in send order, as InFlight does.
                (requests.send(true), k)
            } else if let Some(k) = step.get("finished") {
                requests.finished(int(k) as u64);
                continue;
            } else {
                (requests.lowest(), &step["lowest"])
            };
            if got as i64 != int(expected) {
                problems.push(format!("step {number} {step}: got {got}"));
            }
        }
        problems
    });
}

#[test]
fn lifetime_vectors() {
    replay("lifetime", |case| {
        let got = lifetime_count(
            case["session_timeout_ms"].as_f64().expect("a number"),
            case["publishing_interval_ms"].as_f64().expect("a number"),
            int(&case["keep_alive_count"]) as u32,
        );
        let expected = int(&case["lifetime_count"]);
        (got as i64 != expected)
            .then(|| format!("got {got}"))
            .into_iter()
            .collect()
    });
}

#[test]
fn timeline_vectors() {
    replay("timeline", |case| {
        let mut timeline = Timeline::new(int(&case["window_ms"]) as u64);
        let begin = &case["begin"];
        if !begin.is_null() {
            timeline.begin(
                int(&begin["start_ns"]),
                int(&begin["span_ns"]),
                int(&begin["offset_ns"]),
            );
        }
        for completion in case["completions"].as_array().expect("completions") {
            timeline.completed(int(&completion[0]), int(&completion[1]) as u64);
        }
        let record = timeline.record(int(&case["end_ns"]));
        (record != case["record"])
            .then(|| format!("got {record}, expected {}", case["record"]))
            .into_iter()
            .collect()
    });
}
