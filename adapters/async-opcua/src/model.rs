//! The standard address space of SPEC §4: pure value functions shared by the server (to
//! publish the values) and the client (to verify them).

pub const NAMESPACE_URI: &str = "urn:uabench:model";
pub const ROOT_OBJECT: &str = "uabench";
pub const TICK_MODULUS: u32 = 16384;
pub const SIGNAL_INDEX_MODULUS: u32 = 1024;
pub const REAL_VALUE: f32 = 1234.5;
pub const PAGE_LENGTH: usize = 512;
pub const SDD_LENGTH: usize = 20000;
pub const IMAGE_LENGTH: usize = 65535;
pub const ARRAYS: [(&str, usize); 2] = [("Array_10", 10), ("Array_10000", 10000)];

/// signal(i, t) = float32((i mod 1024) * 16384 + (t mod 16384)).
pub fn signal(index: u64, tick: u64) -> f32 {
    ((index % SIGNAL_INDEX_MODULUS as u64) * TICK_MODULUS as u64 + tick % TICK_MODULUS as u64) as f32
}

pub fn page() -> Vec<i16> {
    (0..PAGE_LENGTH)
        .map(|k| (((k * 37) % 65536) as i64 - 32768) as i16)
        .collect()
}

fn byte_pattern(length: usize, factor: usize, offset: usize) -> Vec<u8> {
    (0..length).map(|k| ((k * factor + offset) % 256) as u8).collect()
}

pub fn sdd() -> Vec<u8> {
    byte_pattern(SDD_LENGTH, 31, 7)
}

pub fn image() -> Vec<u8> {
    byte_pattern(IMAGE_LENGTH, 13, 1)
}

/// Double[length] with element k = k + 0.5.
pub fn double_array(length: usize) -> Vec<f64> {
    (0..length).map(|k| k as f64 + 0.5).collect()
}

/// SPEC §3 Write: request k of session s writes s·1e9 + k·nodes_per_request + j.
pub fn write_value(session: usize, request: u64, nodes_per_request: usize, position: usize) -> f64 {
    session as f64 * 1e9 + (request * nodes_per_request as u64 + position as u64) as f64
}

/// SPEC §3 write verification after the phase: -(100000·p + i) - 0.25.
pub fn write_verification_value(pattern: u64, position: usize) -> f64 {
    -((100000 * pattern + position as u64) as f64) - 0.25
}

/// nodes[(k·n + j) mod len(nodes)] for j < n: the positions of request k.
pub fn request_positions(count: usize, request: u64, per_request: usize) -> impl Iterator<Item = usize> {
    let start = ((request as u128 * per_request as u128) % count as u128) as usize;
    (0..per_request).map(move |j| (start + j) % count)
}
