//! The read verification rules that span values (SPEC §3, R1–R4): the ticks of one response
//! agree (R1), are not older than what the session had received before sending the request
//! (R2), advance over the measured phase (R3: counted here, judged by the harness) and carry a
//! plausible SourceTimestamp (R4). R5 (wire types) is verify.rs's; only values that passed it
//! reach this module. The state is sized by the node list once.

use opcua::types::{DataValue, DateTime};

use crate::model::TICK_MODULUS;
use crate::verify::{tick_of, verify_value};

const MODULUS: i64 = TICK_MODULUS as i64;
const HALF: i64 = MODULUS / 2;
/// A SourceTimestamp may run ahead of the client's receive time by this much (clock skew).
const FUTURE_SLACK_NS: i64 = 1_000_000_000;

pub fn carries_tick(node: &str) -> bool {
    node == "Tick" || node.starts_with("Signal_")
}

/// Unix ns of an OPC UA DateTime (with its picoseconds), None when null.
pub fn unix_ns(time: Option<&DateTime>, picoseconds: Option<u16>) -> Option<i64> {
    let time = time.filter(|t| !t.is_null())?;
    let ns = time.as_chrono().timestamp_nanos_opt()?;
    Some(ns + picoseconds.unwrap_or(0) as i64 / 1000)
}

/// SPEC §3 subscribe: (tick gaps, duplicates) an item's update with tick `next` adds after one
/// with tick `last` (both mod 16384).
pub fn tick_step(last: u32, next: u32) -> (u64, u64) {
    let step = (next as i64 - last as i64).rem_euclid(MODULUS);
    if step == 0 {
        (0, 1)
    } else if step < HALF {
        (step as u64 - 1, 0)
    } else {
        (0, 0)
    }
}

/// One session's state (the rules hold per session).
pub struct TickVerification {
    /// Per position in the node list: its slot (a distinct Tick or Signal_i node), or None.
    slot_of: Vec<Option<usize>>,
    names: Vec<String>,
    is_tick: Vec<bool>,
    /// Per slot: the furthest tick seen, its SourceTimestamp (ns), the measured forward steps.
    last: Vec<Option<i64>>,
    last_source: Vec<i64>,
    pub advanced: Vec<u64>,
    /// R2: the highest tick (mod the modulus) of any Tick or Signal this session has judged.
    high_water: Option<i64>,
}

impl TickVerification {
    pub fn new(nodes: &[String]) -> Self {
        let mut names: Vec<String> = Vec::new();
        let slot_of = nodes
            .iter()
            .map(|node| {
                if !carries_tick(node) {
                    return None;
                }
                Some(names.iter().position(|n| n == node).unwrap_or_else(|| {
                    names.push(node.clone());
                    names.len() - 1
                }))
            })
            .collect();
        let is_tick = names.iter().map(|n| n == "Tick").collect();
        let slots = names.len();
        TickVerification {
            slot_of,
            names,
            is_tick,
            last: vec![None; slots],
            last_source: vec![0; slots],
            advanced: vec![0; slots],
            high_water: None,
        }
    }

    /// The session's high-water tick now: taken when a request is sent, passed back to judge().
    pub fn sent_after(&self) -> Option<i64> {
        self.high_water
    }

    /// The Tick of one response (the first one), or None: values[j] is position (first + j).
    pub fn response_tick(&self, first: usize, values: &[DataValue]) -> Option<i64> {
        let count = self.slot_of.len();
        values.iter().enumerate().find_map(|(j, dv)| {
            let slot = self.slot_of[(first + j) % count]?;
            if self.is_tick[slot]
                && dv.status.is_none_or(|s| s.is_good())
                && verify_value("Tick", dv.value.as_ref()).is_none()
            {
                tick_of("Tick", dv.value.as_ref()).map(i64::from)
            } else {
                None
            }
        })
    }

    /// Judges one value that passed R5 and moves its node's state on; None or the failure.
    pub fn judge(
        &mut self,
        position: usize,
        dv: &DataValue,
        response_tick: Option<i64>,
        sent_after: Option<i64>,
        received_wall_ns: i64,
        measured: bool,
    ) -> Option<String> {
        let slot = self.slot_of[position]?;
        let node = &self.names[slot];
        let raw = tick_of(node, dv.value.as_ref())? as i64;
        let tick = raw;
        let wrapped = tick % MODULUS;
        // R2's high-water tick moves on to every value that arrived when it is a forward step.
        let beyond = match self.high_water {
            None => 1,
            Some(h) => (wrapped - h).rem_euclid(MODULUS),
        };
        if (1..HALF).contains(&beyond) {
            self.high_water = Some(wrapped);
        }
        let Some(source) = unix_ns(dv.source_timestamp.as_ref(), dv.source_picoseconds) else {
            return Some(format!("{node}: no SourceTimestamp"));
        };
        if !self.is_tick[slot] {
            if let Some(now) = response_tick {
                let now = now % MODULUS;
                let ahead = (tick - now).rem_euclid(MODULUS);
                if ahead > 1 && ahead < MODULUS - 1 {
                    return Some(format!(
                        "{node}: tick {tick}, but Tick {now} (mod {MODULUS}) in the same response"
                    ));
                }
            }
        }
        if let Some(f) = sent_after {
            let back = (f - wrapped).rem_euclid(MODULUS);
            if (2..HALF).contains(&back) {
                return Some(format!(
                    "{node}: tick {wrapped}, but tick {f} had arrived before this request was sent"
                ));
            }
        }
        let node = node.clone();
        let failure = self.advance(slot, &node, tick, source, measured);
        if failure.is_none() && source > received_wall_ns + FUTURE_SLACK_NS {
            return Some(format!(
                "{node}: SourceTimestamp {:.1} s in the future",
                (source - received_wall_ns) as f64 / 1e9
            ));
        }
        failure
    }

    /// R3's forward steps and the ordering half of R4, per node.
    fn advance(&mut self, slot: usize, node: &str, tick: i64, source: i64, measured: bool) -> Option<String> {
        let Some(previous) = self.last[slot] else {
            self.last[slot] = Some(tick);
            self.last_source[slot] = source;
            return None;
        };
        // R3: a Signal steps forward by (new − last) mod 16384 when below 8192; 8192 or more
        // is a step back (across the wrap or not), which, like a Tick's, neither counts nor
        // moves the last tick seen (R4 compares against the furthest one).
        let step = if self.is_tick[slot] {
            (tick - previous).max(0)
        } else {
            let ahead = (tick - previous).rem_euclid(MODULUS);
            if ahead < HALF {
                ahead
            } else {
                0
            }
        };
        if step == 0 {
            return None;
        }
        if measured {
            self.advanced[slot] += step as u64;
        }
        let previous_source = self.last_source[slot];
        self.last[slot] = Some(tick);
        self.last_source[slot] = source;
        (source < previous_source)
            .then(|| format!("{node}: tick {tick} has an earlier SourceTimestamp than tick {previous}"))
    }
}

/// verification.ticks_advanced (SPEC §6): the forward steps summed per node across sessions, the
/// largest sum over nodes; 0 when no Tick or Signal was read.
pub fn ticks_advanced(states: &[&TickVerification]) -> u64 {
    let slots = states.first().map_or(0, |s| s.advanced.len());
    (0..slots)
        .map(|slot| states.iter().map(|s| s.advanced[slot]).sum())
        .max()
        .unwrap_or(0)
}
