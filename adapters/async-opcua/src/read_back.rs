//! SPEC §3 W1, writes read back under load: session 0 reads back every 64th measured write as
//! soon as it succeeded, so a server that answers Good to writes it loses or applies late under
//! load fails (the read-back after the phase only sees an idle server). The Read takes no
//! in_flight slot and is no operation; the drain waits for it (settled()). Also the write
//! verification after the phase.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opcua::types::{AttributeId, DataValue, NumericRange, Variant, WriteValue};
use tokio::sync::Notify;

use crate::config::ClientConfig;
use crate::model::{request_positions, write_verification_value};
use crate::recorder::Recorder;
use crate::session::{read_value_id, UaSession};
use crate::verify::describe;

const PERIOD: u64 = 64;
const SESSION_STRIDE: f64 = 1e9;

/// Whether session 0's request k is read back: k mod 64 = 63, sent (scheduled) in the phase.
pub fn read_back_sampled(k: u64, measured: bool) -> bool {
    measured && k % PERIOD == PERIOD - 1
}

/// The layout a read-back value is judged against.
pub struct Layout<'a> {
    pub nodes: &'a [String],
    pub sessions: usize,
    pub nodes_per_request: usize,
}

/// Judges one value read back after session 0's write `k`, sent while `lowest` was the lowest
/// request index of session 0 in flight: None, or the failure.
pub fn judge_read_back(node: &str, dv: &DataValue, layout: &Layout, k: u64, lowest: u64) -> Option<String> {
    let status = dv.status.unwrap_or(opcua::types::StatusCode::Good);
    if !status.is_good() {
        return Some(format!("read-back of {node}: {status}"));
    }
    let Some(Variant::Double(v)) = dv.value else {
        return Some(format!(
            "read-back of {node}: {}, which no write of this run put there",
            describe(dv.value.as_ref())
        ));
    };
    let s = (v / SESSION_STRIDE).floor();
    let m = v - s * SESSION_STRIDE;
    let foreign = v.fract() != 0.0
        || v < 0.0
        || s >= layout.sessions as f64
        || layout.nodes[(m as u64 % layout.nodes.len() as u64) as usize] != node;
    if foreign {
        return Some(format!(
            "read-back of {node}: {v}, which no write of this run put there"
        ));
    }
    let write = m as u64 / layout.nodes_per_request as u64;
    if s == 0.0 && write < lowest {
        return Some(format!(
            "read-back of {node}: session 0's write {write}, but its writes before {lowest} had completed when write {k} was sent"
        ));
    }
    None
}

/// Session 0's read-backs of one run: the Reads in flight and their verdicts.
pub struct WriteReadBack {
    session: Arc<UaSession>,
    config: Arc<ClientConfig>,
    recorder: Arc<Mutex<Recorder>>,
    /// Read-backs in flight: id -> the sampled write's index k.
    in_flight: Mutex<HashMap<u64, u64>>,
    next_id: AtomicU64,
    done: Notify,
}

impl WriteReadBack {
    pub fn new(session: Arc<UaSession>, config: Arc<ClientConfig>, recorder: Arc<Mutex<Recorder>>) -> Arc<Self> {
        Arc::new(WriteReadBack {
            session,
            config,
            recorder,
            in_flight: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(0),
            done: Notify::new(),
        })
    }

    fn names(&self, k: u64) -> Vec<&str> {
        request_positions(self.config.nodes.len(), k, self.config.nodes_per_request)
            .map(|i| self.config.nodes[i].as_str())
            .collect()
    }

    /// Write k succeeded: its Read goes out now. lowest: C, kept when write k was sent.
    pub fn start(self: &Arc<Self>, k: u64, lowest: u64) {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.in_flight.lock().expect("read-back lock").insert(id, k);
        let me = self.clone();
        tokio::spawn(async move {
            let ids: Vec<_> = me
                .names(k)
                .iter()
                .map(|n| read_value_id(me.session.node_id(n)))
                .collect();
            let result = me.session.read(&ids).await;
            // Abandoned at the end of the drain: its values were counted as failed then.
            if me.in_flight.lock().expect("read-back lock").remove(&id).is_none() {
                return;
            }
            let names = me.names(k);
            let layout = Layout {
                nodes: &me.config.nodes,
                sessions: me.config.sessions,
                nodes_per_request: me.config.nodes_per_request,
            };
            let mut recorder = me.recorder.lock().expect("recorder lock");
            match result {
                Ok(values) if values.len() == names.len() => {
                    for (name, dv) in names.iter().zip(&values) {
                        recorder.read_back(judge_read_back(name, dv, &layout, k, lowest));
                    }
                }
                Ok(values) => {
                    for name in &names {
                        recorder.read_back(Some(format!(
                            "read-back of {name}: {} values for {} nodes",
                            values.len(),
                            names.len()
                        )));
                    }
                }
                Err(status) => {
                    for name in &names {
                        recorder.read_back(Some(format!("read-back of {name}: {status}")));
                    }
                }
            }
            drop(recorder);
            me.done.notify_waiters();
        });
    }

    /// Resolves when no read-back is in flight (one started meanwhile is waited for too).
    pub async fn settled(&self) {
        loop {
            let notified = self.done.notified();
            if self.in_flight.lock().expect("read-back lock").is_empty() {
                return;
            }
            notified.await;
        }
    }

    /// At the end of the drain: each value of a Read still unanswered fails.
    pub fn abandon(&self) {
        let left: Vec<u64> = self
            .in_flight
            .lock()
            .expect("read-back lock")
            .drain()
            .map(|(_, k)| k)
            .collect();
        let mut recorder = self.recorder.lock().expect("recorder lock");
        for k in left {
            for name in self.names(k) {
                recorder.read_back(Some(format!(
                    "read-back of {name}: no response within 5 s after the measured phase"
                )));
            }
        }
    }
}

pub fn double_write(node_id: opcua::types::NodeId, value: f64) -> WriteValue {
    WriteValue {
        node_id,
        attribute_id: AttributeId::Value as u32,
        index_range: NumericRange::None,
        value: DataValue::value_only(Variant::Double(value)),
    }
}

/// After the measured phase (verify, write workload): session 0 writes a per-run pattern to
/// every node, reads them all back and counts each difference. A call unanswered within the
/// bound stops the pass (its nodes fail), as a dead connection would answer nothing more.
pub async fn verify_writes(session: &UaSession, config: &ClientConfig, recorder: &Mutex<Recorder>) {
    const BOUND: Duration = Duration::from_secs(10);
    let pattern = (crate::clock::wall_ns(crate::clock::now_ns()) / 1_000_000) as u64 % 1000 + 1;
    let nodes = &config.nodes;
    let chunk = config.nodes_per_request.clamp(1, 1000);
    // SPEC §3: a node listed twice keeps the value written last to it (the highest position).
    let mut last_position: HashMap<&str, usize> = HashMap::new();
    for (i, name) in nodes.iter().enumerate() {
        last_position.insert(name, i);
    }
    let mut gave_up = false;
    for from in (0..nodes.len()).step_by(chunk) {
        let positions: Vec<usize> = (from..(from + chunk).min(nodes.len())).collect();
        let writes: Vec<_> = positions
            .iter()
            .map(|&i| double_write(session.node_id(&nodes[i]), write_verification_value(pattern, i)))
            .collect();
        let failure = if gave_up {
            Some("an earlier call went unanswered".to_string())
        } else {
            match tokio::time::timeout(BOUND, session.write(&writes)).await {
                Ok(Ok(_)) => None,
                Ok(Err(status)) => Some(status.to_string()),
                Err(_) => {
                    gave_up = true;
                    Some("write: no answer within 10 s".into())
                }
            }
        };
        if let Some(failure) = failure {
            recorder
                .lock()
                .expect("recorder lock")
                .error(Some(&format!("write verification: {failure}")));
        }
    }
    for from in (0..nodes.len()).step_by(chunk) {
        let positions: Vec<usize> = (from..(from + chunk).min(nodes.len())).collect();
        let ids: Vec<_> = positions
            .iter()
            .map(|&i| read_value_id(session.node_id(&nodes[i])))
            .collect();
        let result = if gave_up {
            Err("an earlier call went unanswered".to_string())
        } else {
            match tokio::time::timeout(BOUND, session.read(&ids)).await {
                Ok(Ok(values)) if values.len() == ids.len() => Ok(values),
                Ok(Ok(values)) => Err(format!("{} values for {} nodes", values.len(), ids.len())),
                Ok(Err(status)) => Err(status.to_string()),
                Err(_) => {
                    gave_up = true;
                    Err("read: no answer within 10 s".into())
                }
            }
        };
        let mut recorder = recorder.lock().expect("recorder lock");
        match result {
            Err(why) => {
                for &i in &positions {
                    recorder.verification(Some(format!("{}: read-back failed: {why}", nodes[i])));
                }
            }
            Ok(values) => {
                for (&i, dv) in positions.iter().zip(&values) {
                    let expected = write_verification_value(pattern, last_position[nodes[i].as_str()]);
                    let status = dv.status.unwrap_or(opcua::types::StatusCode::Good);
                    let ok = status.is_good() && matches!(dv.value, Some(Variant::Double(v)) if v == expected);
                    recorder.verification((!ok).then(|| {
                        let got = if status.is_good() {
                            describe(dv.value.as_ref())
                        } else {
                            status.to_string()
                        };
                        format!("{}: read back {got}, wrote {expected}", nodes[i])
                    }));
                }
            }
        }
    }
}
