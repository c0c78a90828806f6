//! Monotonic nanoseconds for latencies and phases, mapped to Unix wall-clock nanoseconds (one
//! fixed offset taken at start) for the record's start_ns/end_ns and every other wall time.

use std::sync::OnceLock;
use std::time::{Instant, SystemTime, UNIX_EPOCH};

struct Reference {
    instant: Instant,
    wall_ns: i128,
}

fn reference() -> &'static Reference {
    static REFERENCE: OnceLock<Reference> = OnceLock::new();
    REFERENCE.get_or_init(|| Reference {
        instant: Instant::now(),
        wall_ns: SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos() as i128)
            .unwrap_or(0),
    })
}

/// Monotonic ns since the process's reference instant.
pub fn now_ns() -> i64 {
    reference().instant.elapsed().as_nanos() as i64
}

/// The Instant of a monotonic ns value (for tokio's sleep_until).
pub fn instant_of(ns: i64) -> Instant {
    reference().instant + std::time::Duration::from_nanos(ns.max(0) as u64)
}

/// Unix wall-clock ns of a monotonic ns value.
pub fn wall_ns(monotonic_ns: i64) -> i64 {
    (reference().wall_ns + monotonic_ns as i128) as i64
}
