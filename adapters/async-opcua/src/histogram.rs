//! Latency histograms of SPEC §5: a value's bucket keeps its 8 most significant bits.

use std::collections::BTreeMap;

use serde_json::{json, Value};

pub fn bucket(value_ns: u64) -> u64 {
    let v = value_ns.max(1);
    let bits = 64 - v.leading_zeros();
    if bits <= 8 {
        v
    } else {
        let shift = bits - 8;
        (v >> shift) << shift
    }
}

#[derive(Default, Clone)]
pub struct Histogram {
    counts: BTreeMap<u64, u64>,
}

impl Histogram {
    pub fn record(&mut self, value_ns: i64) {
        *self.counts.entry(bucket(value_ns.max(1) as u64)).or_insert(0) += 1;
    }

    /// Sparse `[[bucket_ns, count], ...]` sorted by value.
    pub fn sparse(&self) -> Value {
        Value::Array(self.counts.iter().map(|(b, c)| json!([b, c])).collect())
    }

    #[cfg(test)]
    pub fn pairs(&self) -> Vec<(u64, u64)> {
        self.counts.iter().map(|(b, c)| (*b, *c)).collect()
    }
}
