//! Counts one client run and builds the result record of SPEC §6. Shared by the sessions'
//! futures behind one mutex: each completion takes it once, briefly.

use serde_json::{json, Map, Value};

use crate::histogram::Histogram;
use crate::timeline::Timeline;

const MAX_EXAMPLES: usize = 5;
/// SPEC §6 latencies: at most this many entries, the rest counted in `truncated`.
pub const MAX_LATENCIES: usize = 1_000_000;

/// The result record's `latencies` (record_latencies): send instant after the timeline's start
/// and latency of every measured request the latency histogram counts, in completion order.
#[derive(Default)]
pub struct LatencySeries {
    send_ns: Vec<i64>,
    latency_ns: Vec<i64>,
    truncated: u64,
}

impl LatencySeries {
    pub fn append(&mut self, send_ns: i64, latency_ns: i64) {
        if self.send_ns.len() >= MAX_LATENCIES {
            self.truncated += 1;
        } else {
            // Vec grows by amortised doubling.
            self.send_ns.push(send_ns);
            self.latency_ns.push(latency_ns);
        }
    }

    fn record(&self) -> Value {
        json!({"send_ns": self.send_ns, "latency_ns": self.latency_ns, "truncated": self.truncated})
    }
}

pub struct Recorder {
    pub timeline: Timeline,
    latencies: Option<LatencySeries>,
    attempted: u64,
    succeeded: u64,
    failed: u64,
    values: u64,
    checked: u64,
    verification_failed: u64,
    verification_examples: Vec<String>,
    /// SPEC §6: set by the read workload; 0 for write and subscribe.
    pub ticks_advanced: u64,
    /// SPEC §6 verification.read_back: W1's values (write workload with verify).
    read_backs: u64,
    error_examples: Vec<String>,
    latency: Histogram,
    send_lag: Histogram,
    session_setup: Histogram,
    pub start_ns: i64,
    pub end_ns: i64,
}

impl Recorder {
    pub fn new(timeline_ms: u64, record_latencies: bool) -> Self {
        Recorder {
            timeline: Timeline::new(timeline_ms),
            latencies: record_latencies.then(LatencySeries::default),
            attempted: 0,
            succeeded: 0,
            failed: 0,
            values: 0,
            checked: 0,
            verification_failed: 0,
            verification_examples: vec![],
            ticks_advanced: 0,
            read_backs: 0,
            error_examples: vec![],
            latency: Histogram::default(),
            send_lag: Histogram::default(),
            session_setup: Histogram::default(),
            start_ns: 0,
            end_ns: 0,
        }
    }

    /// One measured request; sent_ns: its (open loop: scheduled) monotonic send instant.
    pub fn operation(&mut self, latency_ns: i64, ok: bool, values: u64, error: Option<&str>, sent_ns: i64) {
        self.attempted += 1;
        if ok {
            self.succeeded += 1;
            self.values += values;
            let latency = latency_ns.max(1);
            self.latency.record(latency);
            let start = self.timeline.start_ns;
            if let Some(series) = &mut self.latencies {
                series.append((sent_ns - start).max(0), latency);
            }
        } else {
            self.failed += 1;
            self.error(error);
        }
    }

    /// Open loop: a measured request was handed to the SDK lag_ns after its scheduled time.
    pub fn sent(&mut self, lag_ns: i64) {
        self.send_lag.record(lag_ns.max(1));
    }

    /// One data-change notification of the subscribe workload (SPEC §3): no latency.
    pub fn notification(&mut self, ok: bool, error: Option<&str>) {
        self.attempted += 1;
        if ok {
            self.succeeded += 1;
            self.values += 1;
        } else {
            self.failed += 1;
            self.error(error);
        }
    }

    pub fn session_ready(&mut self, setup_ns: i64) {
        self.session_setup.record(setup_ns.max(1));
    }

    pub fn error(&mut self, message: Option<&str>) {
        if let Some(message) = message {
            if self.error_examples.len() < MAX_EXAMPLES {
                self.error_examples.push(message.chars().take(200).collect());
            }
        }
    }

    pub fn verification(&mut self, failure: Option<String>) {
        self.checked += 1;
        if let Some(failure) = failure {
            self.verification_failed += 1;
            if self.verification_examples.len() < MAX_EXAMPLES {
                self.verification_examples.push(failure);
            }
        }
    }

    /// One value read back under load (SPEC §3 W1): a checked value, None or its failure.
    pub fn read_back(&mut self, failure: Option<String>) {
        self.read_backs += 1;
        self.verification(failure);
    }

    pub fn values(&self) -> u64 {
        self.values
    }

    /// The result record; `extra` holds the workload's own keys (subscribe).
    pub fn result(&self, version: &str, config: &Value, connection: Value, extra: Map<String, Value>) -> Value {
        let seconds = ((self.end_ns - self.start_ns) as f64 / 1e9).max(1e-9);
        let mut record = json!({
            "event": "result", "sdk": crate::SDK_ID, "version": version, "role": "client",
            "workload": config["workload"], "config": config,
            "start_ns": self.start_ns, "end_ns": self.end_ns,
            "operations": {"attempted": self.attempted, "succeeded": self.succeeded, "failed": self.failed},
            "values": self.values,
            "verification": {"checked": self.checked, "failed": self.verification_failed,
                             "examples": self.verification_examples, "ticks_advanced": self.ticks_advanced,
                             "read_back": self.read_backs},
            "errors": {"examples": self.error_examples},
            "throughput": {"ops_per_s": self.succeeded as f64 / seconds, "values_per_s": self.values as f64 / seconds},
            "latency_ns": self.latency.sparse(),
            "send_lag_ns": self.send_lag.sparse(),
            "session_setup_ns": self.session_setup.sparse(),
            "connection": connection,
            "timeline": self.timeline.record(self.end_ns),
        });
        let object = record.as_object_mut().expect("an object");
        if let Some(series) = &self.latencies {
            object.insert("latencies".into(), series.record());
        }
        object.extend(extra);
        record
    }
}
