//! Drives one session's requests (read or write) through the phases of a run (SPEC §3): closed
//! loop with `in_flight` concurrent requests (futures on the session's task, not threads), or
//! open loop at fixed scheduled times where latency runs from the scheduled time, so waiting
//! for a free slot is part of it; the 5 s drain; verification of what comes back.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};

use futures::stream::{FuturesUnordered, StreamExt};
use opcua::types::{NodeId, StatusCode};

use crate::clock::{instant_of, now_ns, wall_ns};
use crate::config::{ClientConfig, Workload};
use crate::connection::RETRY_MS;
use crate::model::{request_positions, write_value};
use crate::read_back::{double_write, read_back_sampled, WriteReadBack};
use crate::recorder::Recorder;
use crate::session::{read_value_id, UaSession};
use crate::tick_check::TickVerification;
use crate::verify::verify_value;

const GRACE_NS: i64 = 5_000_000_000;

#[derive(Clone, Copy)]
pub struct Phase {
    pub start: i64,
    pub measure_from: i64,
    pub measure_until: i64,
    pub grace_until: i64,
}

/// The run's phases from now (the config's warm-up and duration), with the recorder's timeline
/// begun over them: requests and subscriptions start their phases the same way.
pub fn begin_phase(config: &ClientConfig, recorder: &Mutex<Recorder>) -> Phase {
    let start = now_ns();
    // Whole nanoseconds, so the record's start_ns minus the timeline's is exactly the warm-up.
    let measure_from = start + (config.warmup_s * 1e9).round() as i64;
    let measure_until = measure_from + (config.duration_s * 1e9).round() as i64;
    // wall_ns(0): the one offset that maps every monotonic instant to the record's wall clock.
    recorder
        .lock()
        .expect("recorder lock")
        .timeline
        .begin(start, measure_until - start, wall_ns(0));
    Phase {
        start,
        measure_from,
        measure_until,
        grace_until: measure_until + GRACE_NS,
    }
}

/// One session's requests by index k (SPEC §3: counted from its first, warm-up included): numbers
/// them in send order and keeps those in flight (k -> measured) until they finish, for W1's C
/// and the drain. Its own unit so the contract's vectors replay what the workload runs.
#[derive(Default)]
pub struct InFlight {
    next: u64,
    pending: BTreeMap<u64, bool>,
}

impl InFlight {
    /// Numbers the next request and puts it in flight; its k.
    pub fn send(&mut self, measured: bool) -> u64 {
        let k = self.next;
        self.next += 1;
        self.pending.insert(k, measured);
        k
    }

    /// Request k is done (succeeded or failed).
    pub fn finished(&mut self, k: u64) {
        self.pending.remove(&k);
    }

    /// W1's C for a request sent now: the lowest k still in flight (the request itself once it
    /// is sent), or the next k if none is.
    pub fn lowest(&self) -> u64 {
        self.pending.keys().next().copied().unwrap_or(self.next)
    }

    /// After the drain: whether each request still in flight was measured; none is any more.
    pub fn abandon(&mut self) -> Vec<bool> {
        std::mem::take(&mut self.pending).into_values().collect()
    }
}

/// One session's load: shared by its concurrent request futures.
pub struct SessionLoad {
    session: Arc<UaSession>,
    config: Arc<ClientConfig>,
    recorder: Arc<Mutex<Recorder>>,
    phase: Phase,
    /// The NodeId of each position of `nodes`, resolved once.
    node_ids: Vec<NodeId>,
    /// R1–R4 state of this session (read workload with verify).
    pub ticks: Option<Mutex<TickVerification>>,
    /// Session 0's W1 read-backs (write workload with verify).
    read_back: Option<Arc<WriteReadBack>>,
    requests: Mutex<InFlight>,
    /// Open loop: scheduled send times not sent yet (all in_flight slots busy).
    backlog: Mutex<VecDeque<i64>>,
}

impl SessionLoad {
    pub fn new(
        session: Arc<UaSession>,
        config: Arc<ClientConfig>,
        recorder: Arc<Mutex<Recorder>>,
        phase: Phase,
    ) -> Arc<Self> {
        let node_ids = config.nodes.iter().map(|n| session.node_id(n)).collect();
        let ticks = (config.workload == Workload::Read && config.verify)
            .then(|| Mutex::new(TickVerification::new(&config.nodes)));
        let read_back = (config.workload == Workload::Write && config.verify && session.index == 0)
            .then(|| WriteReadBack::new(session.clone(), config.clone(), recorder.clone()));
        Arc::new(SessionLoad {
            session,
            config,
            recorder,
            phase,
            node_ids,
            ticks,
            read_back,
            requests: Mutex::new(InFlight::default()),
            backlog: Mutex::new(VecDeque::new()),
        })
    }

    fn is_measured(&self, reference_ns: i64) -> bool {
        reference_ns >= self.phase.measure_from && reference_ns < self.phase.measure_until
    }

    /// Sends request k (the next one) for the send (open loop: scheduled) time `reference_ns`
    /// and records its outcome; true when it succeeded.
    async fn dispatch(&self, reference_ns: i64) -> bool {
        let measured = self.is_measured(reference_ns);
        // A failure of this request is a loss only if no restoration came after its send.
        let epoch = self.session.health.epoch();
        let (k, lowest) = {
            let mut requests = self.requests.lock().expect("requests lock");
            let k = requests.send(measured);
            // W1's C, kept with a sampled write of session 0.
            let sampled = self.read_back.is_some() && read_back_sampled(k, measured);
            (k, sampled.then(|| requests.lowest()))
        };
        let positions: Vec<usize> =
            request_positions(self.config.nodes.len(), k, self.config.nodes_per_request).collect();
        let (outcome, read) = match self.config.workload {
            Workload::Read => {
                let ids: Vec<_> = positions
                    .iter()
                    .map(|&i| read_value_id(self.node_ids[i].clone()))
                    .collect();
                // R2: what this session had received before the request goes out.
                let sent_after = self
                    .ticks
                    .as_ref()
                    .and_then(|t| t.lock().expect("ticks lock").sent_after());
                self.sent(measured, reference_ns);
                let result = self.session.read(&ids).await;
                let outcome = match &result {
                    Ok(values) if values.len() != ids.len() => Err(StatusCode::BadUnexpectedError),
                    Ok(values) => values
                        .iter()
                        .filter_map(|dv| dv.status)
                        .find(|s| !s.is_good())
                        .map_or(Ok(()), Err),
                    Err(status) => Err(*status),
                };
                (outcome, result.ok().map(|values| (values, sent_after)))
            }
            _ => {
                let writes: Vec<_> = positions
                    .iter()
                    .enumerate()
                    .map(|(j, &i)| {
                        double_write(
                            self.node_ids[i].clone(),
                            write_value(self.session.index, k, self.config.nodes_per_request, j),
                        )
                    })
                    .collect();
                self.sent(measured, reference_ns);
                let outcome = match self.session.write(&writes).await {
                    Ok(statuses) if statuses.len() != writes.len() => Err(StatusCode::BadUnexpectedError),
                    Ok(statuses) => statuses.into_iter().find(|s| !s.is_good()).map_or(Ok(()), Err),
                    Err(status) => Err(status),
                };
                (outcome, None)
            }
        };
        let completed = now_ns();
        self.requests.lock().expect("requests lock").finished(k);
        let ok = outcome.is_ok();
        match outcome {
            Ok(()) => self.session.health.request_succeeded(),
            Err(status) => self.session.health.request_failed(status, epoch),
        }
        let values = if ok { positions.len() as u64 } else { 0 };
        {
            let mut recorder = self.recorder.lock().expect("recorder lock");
            if ok {
                recorder.timeline.completed(completed, values);
            }
            if measured {
                let error = outcome.err().map(|s| s.to_string());
                recorder.operation(completed - reference_ns, ok, values, error.as_deref(), reference_ns);
            }
        }
        if ok {
            if let (Some(lowest), Some(read_back)) = (lowest, &self.read_back) {
                read_back.start(k, lowest);
            }
            if let (Some((values, sent_after)), Some(ticks)) = (read, &self.ticks) {
                self.check(&positions, &values, sent_after, ticks, measured);
            }
        }
        ok
    }

    /// SPEC §6 send_lag_ns: the request goes to the SDK's call right after this.
    fn sent(&self, measured: bool, reference_ns: i64) {
        if measured && self.config.rate.is_some() {
            self.recorder
                .lock()
                .expect("recorder lock")
                .sent(now_ns() - reference_ns);
        }
    }

    /// Read verification of one response (warm-up ones too, counted only when measured).
    fn check(
        &self,
        positions: &[usize],
        values: &[opcua::types::DataValue],
        sent_after: Option<i64>,
        ticks: &Mutex<TickVerification>,
        measured: bool,
    ) {
        let received = wall_ns(now_ns());
        let mut ticks = ticks.lock().expect("ticks lock");
        let first = positions.first().copied().unwrap_or(0);
        let tick = ticks.response_tick(first, values);
        let mut failures = Vec::new();
        for (&i, dv) in positions.iter().zip(values) {
            let name = &self.config.nodes[i];
            let failure = verify_value(name, dv.value.as_ref())
                .or_else(|| ticks.judge(i, dv, tick, sent_after, received, measured));
            if measured {
                failures.push(failure);
            }
        }
        drop(ticks);
        if measured {
            let mut recorder = self.recorder.lock().expect("recorder lock");
            for failure in failures {
                recorder.verification(failure);
            }
        }
    }

    /// Runs the load; resolves when nothing measured is outstanding any more, read-backs
    /// included, or at the end of the 5 s drain (what is left then fails, see abandon()).
    pub async fn run(self: Arc<Self>) {
        let work = async {
            match self.config.rate {
                None => self.closed_loop().await,
                Some(rate) => self.open_loop(rate).await,
            }
            if let Some(read_back) = &self.read_back {
                read_back.settled().await;
            }
        };
        if tokio::time::timeout_at(instant_of(self.phase.grace_until).into(), work)
            .await
            .is_err()
        {
            eprintln!("session {}: drain ended with requests outstanding", self.session.index);
        }
        self.abandon();
    }

    async fn closed_loop(&self) {
        let think_ms = self.config.think_ms;
        let worker = || async move {
            loop {
                let t = now_ns();
                if t >= self.phase.measure_until {
                    return;
                }
                let ok = self.dispatch(t).await;
                // A failed request's slot waits 10 ms (a dead connection is not spun on), or
                // think_ms if longer.
                let wait_ms = if ok { think_ms } else { think_ms.max(RETRY_MS as f64) };
                if wait_ms > 0.0 && !self.wait(wait_ms).await {
                    return;
                }
            }
        };
        futures::future::join_all((0..self.config.in_flight).map(|_| worker())).await;
    }

    /// SPEC §3 think_ms: the slot sleeps wait_ms after a response; false when the wait would
    /// outlast the measured phase, in which the slot sends nothing more.
    async fn wait(&self, wait_ms: f64) -> bool {
        let until = now_ns() + (wait_ms * 1e6) as i64;
        if until >= self.phase.measure_until {
            return false;
        }
        tokio::time::sleep_until(instant_of(until).into()).await;
        true
    }

    async fn open_loop(&self, rate: f64) {
        // Sessions share the total rate, each on its own evenly offset schedule.
        let interval_ns = 1e9 * self.config.sessions as f64 / rate;
        let offset_ns = self.session.index as f64 * 1e9 / rate;
        let mut n: u64 = 0;
        let scheduled = |n: u64| self.phase.start + (offset_ns + n as f64 * interval_ns).round() as i64;
        let mut running = FuturesUnordered::new();
        loop {
            let now = now_ns();
            {
                let mut backlog = self.backlog.lock().expect("backlog lock");
                while scheduled(n) <= now && scheduled(n) < self.phase.measure_until {
                    backlog.push_back(scheduled(n));
                    n += 1;
                }
                while running.len() < self.config.in_flight {
                    let Some(at) = backlog.pop_front() else { break };
                    running.push(self.dispatch(at));
                }
            }
            let next = scheduled(n);
            let more = next < self.phase.measure_until;
            if !more && running.is_empty() && self.backlog.lock().expect("backlog lock").is_empty() {
                return;
            }
            // Sleeps until the next scheduled send or a completion, whichever comes first (the
            // CPU of the load generator is measured: no busy polling).
            tokio::select! {
                _ = running.next(), if !running.is_empty() => {}
                _ = tokio::time::sleep_until(instant_of(next).into()), if more => {}
                else => return,
            }
        }
    }

    /// After the drain: whatever measured is still outstanding or unsent has failed.
    fn abandon(&self) {
        let pending = self.requests.lock().expect("requests lock").abandon();
        let backlog: Vec<i64> = self.backlog.lock().expect("backlog lock").drain(..).collect();
        {
            let mut recorder = self.recorder.lock().expect("recorder lock");
            for measured in pending {
                if measured {
                    recorder.operation(0, false, 0, Some("no response within 5 s after the measured phase"), 0);
                }
            }
            for at in backlog {
                if self.is_measured(at) {
                    recorder.operation(0, false, 0, Some("not sent within 5 s after the measured phase"), 0);
                }
            }
        }
        if let Some(read_back) = &self.read_back {
            read_back.abandon();
        }
    }
}
