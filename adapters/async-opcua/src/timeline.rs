//! The result record's timeline (SPEC §6): successful completions and their values per window
//! of `timeline_ms` from the start of the workload (warm-up included) to the end of the measured
//! phase. Counting is an index and two additions into arrays allocated at begin().

use serde_json::{json, Value};

pub struct Timeline {
    window_ms: u64,
    window_ns: i64,
    pub start_ns: i64,
    /// Added to the adapter's monotonic clock gives the record's wall clock (clock::wall_ns).
    offset_ns: i64,
    begun: bool,
    ops: Vec<u64>,
    values: Vec<u64>,
}

impl Timeline {
    pub fn new(window_ms: u64) -> Self {
        Timeline {
            window_ms,
            window_ns: window_ms as i64 * 1_000_000,
            start_ns: 0,
            offset_ns: 0,
            begun: false,
            ops: vec![],
            values: vec![],
        }
    }

    /// The workload starts at monotonic `start_ns` and runs `span_ns` (warm-up + measured phase);
    /// `offset_ns` maps the monotonic clock to the record's (a parameter, not read from the
    /// clock here, so the contract's vectors can give one).
    pub fn begin(&mut self, start_ns: i64, span_ns: i64, offset_ns: i64) {
        self.start_ns = start_ns;
        self.offset_ns = offset_ns;
        self.begun = true;
        let windows = ((span_ns.max(0) + self.window_ns - 1) / self.window_ns) as usize;
        self.ops = vec![0; windows];
        self.values = vec![0; windows];
    }

    /// One operation completed successfully at monotonic `at_ns`, carrying `values`.
    pub fn completed(&mut self, at_ns: i64, values: u64) {
        if !self.begun || at_ns < self.start_ns {
            return;
        }
        let k = ((at_ns - self.start_ns) / self.window_ns) as usize;
        if k < self.ops.len() {
            self.ops[k] += 1;
            self.values[k] += values;
        }
    }

    /// The record's `timeline`, its windows cut or padded to end at the record's end_ns (wall).
    pub fn record(&self, end_wall_ns: i64) -> Value {
        let start = if self.begun {
            self.start_ns + self.offset_ns
        } else {
            end_wall_ns
        };
        let span = end_wall_ns - start;
        let windows = if span > 0 {
            ((span + self.window_ns - 1) / self.window_ns) as usize
        } else {
            0
        };
        let counts =
            |array: &Vec<u64>| -> Vec<u64> { (0..windows).map(|k| array.get(k).copied().unwrap_or(0)).collect() };
        json!({"window_ms": self.window_ms, "start_ns": start, "ops": counts(&self.ops), "values": counts(&self.values)})
    }
}
