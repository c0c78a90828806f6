//! The `subscribe` workload (SPEC §3): every subscription of every session monitors every node;
//! data changes are measured by their receive time in the SDK's notification callback.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use opcua::client::{MonitoredItem, OnSubscriptionNotification};
use opcua::types::{
    DataChangeFilter, DataChangeTrigger, DataValue, ExtensionObject, MonitoredItemCreateRequest, MonitoringMode,
    MonitoringParameters, StatusChangeNotification, TimestampsToReturn,
};
use serde_json::{json, Map, Value};

use crate::clock::{instant_of, now_ns, wall_ns};
use crate::config::ClientConfig;
use crate::histogram::Histogram;
use crate::recorder::Recorder;
use crate::request_workload::{begin_phase, Phase};
use crate::session::{read_value_id, UaSession, SESSION_TIMEOUT_MS};
use crate::tick_check::{carries_tick, tick_step, unix_ns};
use crate::verify::{tick_of, verify_value};

/// SPEC §3 subscribe: a lifetime of at least the session timeout asked for (at most 600 s) and
/// three keep-alives (uabench_contract.lifetime_count).
pub fn lifetime_count(session_timeout_ms: f64, interval_ms: f64, keep_alive_count: u32) -> u32 {
    let wanted = (session_timeout_ms.min(600_000.0) / interval_ms).ceil();
    (3.0 * keep_alive_count as f64).max(wanted).min(u32::MAX as f64) as u32
}

/// Keep-alives about every 10 s, at least 3 publishing intervals.
pub fn keep_alive_count(interval_ms: f64) -> u32 {
    ((10_000.0 / interval_ms).ceil() as u32).max(3)
}

struct Measurements {
    recorder: Arc<Mutex<Recorder>>,
    verify: bool,
    phase: Option<Phase>,
    notifications: u64,
    tick_gaps: u64,
    duplicates: u64,
    cycle_time: Histogram,
    delay: Histogram,
    updates: Vec<u64>,
}

impl Measurements {
    fn is_measured(&self, received: i64) -> bool {
        self.phase
            .is_some_and(|p| received >= p.measure_from && received < p.measure_until)
    }
}

/// One subscription's callback: per item when it was last updated and the tick it carried.
struct Handler {
    number: usize,
    names: Arc<Vec<String>>,
    last_seen: Vec<Option<i64>>,
    last_tick: Vec<Option<u32>>,
    m: Arc<Mutex<Measurements>>,
}

impl OnSubscriptionNotification for Handler {
    fn on_data_value(&mut self, dv: DataValue, item: &MonitoredItem) {
        let received = now_ns();
        // Client handles are position + 1 (set when the items were created).
        let Some(position) = (item.client_handle() as usize)
            .checked_sub(1)
            .filter(|p| *p < self.names.len())
        else {
            return;
        };
        let name = &self.names[position];
        let previous_seen = self.last_seen[position].replace(received);
        let tick = if carries_tick(name) {
            tick_of(name, dv.value.as_ref()).map(|t| t % crate::model::TICK_MODULUS)
        } else {
            None
        };
        let previous_tick = if tick.is_some() {
            std::mem::replace(&mut self.last_tick[position], tick)
        } else {
            None
        };
        let status = dv.status.unwrap_or(opcua::types::StatusCode::Good);
        let ok = status.is_good();
        let mut m = self.m.lock().expect("measurements lock");
        // Lock order: measurements, then recorder (nothing locks them the other way round).
        let shared = m.recorder.clone();
        let mut recorder = shared.lock().expect("recorder lock");
        if ok {
            recorder.timeline.completed(received, 1);
        }
        if !m.is_measured(received) {
            return;
        }
        // SPEC §3: each data change is an operation (no latency); a Bad status is a failed one.
        m.notifications += 1;
        recorder.notification(ok, (!ok).then(|| format!("{name}: {status}")).as_deref());
        if !ok {
            return;
        }
        m.updates[self.number] += 1;
        if m.verify {
            recorder.verification(verify_value(name, dv.value.as_ref()));
        }
        drop(recorder);
        if let Some(previous) = previous_seen {
            m.cycle_time.record(received - previous);
        }
        if let Some(source) = unix_ns(dv.source_timestamp.as_ref(), dv.source_picoseconds) {
            m.delay.record((wall_ns(received) - source).max(1));
        }
        if let (Some(last), Some(next)) = (previous_tick, tick) {
            let (gaps, duplicates) = tick_step(last, next);
            m.tick_gaps += gaps;
            m.duplicates += duplicates;
        }
    }

    fn on_subscription_status_change(&mut self, notification: StatusChangeNotification) {
        eprintln!("subscription {}: status {}", self.number, notification.status);
    }
}

/// Creates one session's subscriptions, each monitoring every node.
async fn subscribe_session(
    session: &UaSession,
    first: usize,
    config: &ClientConfig,
    m: &Arc<Mutex<Measurements>>,
) -> Result<(), String> {
    let names = Arc::new(config.nodes.clone());
    let interval = config.publishing_interval_ms;
    let keep_alive = keep_alive_count(interval);
    let lifetime = lifetime_count(SESSION_TIMEOUT_MS as f64, interval, keep_alive);
    for k in 0..config.subscriptions {
        let handler = Handler {
            number: first + k,
            names: names.clone(),
            last_seen: vec![None; names.len()],
            last_tick: vec![None; names.len()],
            m: m.clone(),
        };
        let id = session
            .session
            .create_subscription(
                Duration::from_secs_f64(interval / 1000.0),
                lifetime,
                keep_alive,
                0,
                1,
                true,
                handler,
            )
            .await
            .map_err(|e| format!("CreateSubscription: {e}"))?;
        let items: Vec<MonitoredItemCreateRequest> = names
            .iter()
            .enumerate()
            .map(|(position, name)| MonitoredItemCreateRequest {
                item_to_monitor: read_value_id(session.node_id(name)),
                monitoring_mode: MonitoringMode::Reporting,
                requested_parameters: MonitoringParameters {
                    client_handle: position as u32 + 1,
                    sampling_interval: config.sampling_interval_ms,
                    filter: ExtensionObject::from_message(DataChangeFilter {
                        trigger: DataChangeTrigger::StatusValue,
                        deadband_type: 0,
                        deadband_value: 0.0,
                    }),
                    queue_size: config.queue_size,
                    discard_oldest: true,
                },
            })
            .collect();
        let created = session
            .session
            .create_monitored_items(id, TimestampsToReturn::Both, items)
            .await
            .map_err(|e| format!("CreateMonitoredItems: {e}"))?;
        let measurements = m.lock().expect("measurements lock");
        let mut recorder = measurements.recorder.lock().expect("recorder lock");
        for (position, item) in created.iter().enumerate() {
            // A monitored item the server refuses is a failed operation (SPEC §3).
            if !item.result.status_code.is_good() {
                recorder.notification(
                    false,
                    Some(&format!("{}: {}", names[position], item.result.status_code)),
                );
            }
        }
    }
    if let Some(ids) = &session.health.subscription_ids {
        let now = session
            .session
            .subscription_state()
            .lock()
            .subscription_ids()
            .unwrap_or_default();
        *ids.lock().expect("ids lock") = now.into_iter().collect();
    }
    Ok(())
}

/// Runs the workload over open sessions; returns the phase and the extra result keys.
pub async fn run_subscribe(
    sessions: &[Arc<UaSession>],
    config: &ClientConfig,
    recorder: &Arc<Mutex<Recorder>>,
) -> Result<(Phase, Map<String, Value>), String> {
    let m = Arc::new(Mutex::new(Measurements {
        recorder: recorder.clone(),
        verify: config.verify,
        phase: None,
        notifications: 0,
        tick_gaps: 0,
        duplicates: 0,
        cycle_time: Histogram::default(),
        delay: Histogram::default(),
        updates: vec![0; sessions.len() * config.subscriptions],
    }));
    let setups = sessions
        .iter()
        .map(|s| subscribe_session(s, s.index * config.subscriptions, config, &m));
    for result in futures::future::join_all(setups).await {
        if let Err(error) = result {
            // With reconnect the run goes on whatever happens to the connection (SPEC §3): a
            // subscription that could not be set up is a failed operation.
            if !config.reconnect {
                return Err(format!("subscribe: {error}"));
            }
            recorder
                .lock()
                .expect("recorder lock")
                .notification(false, Some(&format!("subscribe: {error}")));
        }
    }
    let phase = begin_phase(config, recorder);
    m.lock().expect("measurements lock").phase = Some(phase);
    tokio::time::sleep_until(instant_of(phase.measure_until).into()).await;
    let m = m.lock().expect("measurements lock");
    let values = recorder.lock().expect("recorder lock").values();
    let mut extra = Map::new();
    extra.insert(
        "subscription".into(),
        json!({
            "notifications": m.notifications,
            "values_per_s": values as f64 / config.duration_s,
            "updates_per_subscription": {"min": m.updates.iter().min().copied().unwrap_or(0),
                                         "max": m.updates.iter().max().copied().unwrap_or(0)},
            "tick_gaps": m.tick_gaps,
            "duplicates": m.duplicates,
        }),
    );
    extra.insert("cycle_time_ns".into(), m.cycle_time.sparse());
    extra.insert("delay_ns".into(), m.delay.sparse());
    Ok((phase, extra))
}
