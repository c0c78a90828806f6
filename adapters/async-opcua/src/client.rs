//! The `client` role: opens the sessions, runs one workload through its phases and returns the
//! result record.

use std::sync::{Arc, Mutex};

use futures::stream::{self, StreamExt};
use serde_json::{Map, Value};

use crate::clock::wall_ns;
use crate::config::{ClientConfig, Workload};
use crate::connection::Connection;
use crate::json_out::Failure;
use crate::read_back::verify_writes;
use crate::recorder::Recorder;
use crate::request_workload::{begin_phase, Phase, SessionLoad};
use crate::security::{stage_key_pair, WorkFolder};
use crate::session::{make_client, open, UaSession};
use crate::subscribe::run_subscribe;
use crate::tick_check::ticks_advanced;

/// Sessions connect a few at a time: a thousand simultaneous RSA handshakes would push some
/// past the connect timeout on a small machine.
const CONNECTING_AT_ONCE: usize = 16;

async fn run_requests(
    sessions: &[Arc<UaSession>],
    config: &Arc<ClientConfig>,
    recorder: &Arc<Mutex<Recorder>>,
) -> Phase {
    let phase = begin_phase(config, recorder);
    let loads: Vec<_> = sessions
        .iter()
        .map(|s| SessionLoad::new(s.clone(), config.clone(), recorder.clone(), phase))
        .collect();
    // One tokio task per session; its in_flight requests are concurrent futures on it.
    let tasks: Vec<_> = loads.iter().map(|load| tokio::spawn(load.clone().run())).collect();
    for task in tasks {
        let _ = task.await;
    }
    let states: Vec<_> = loads
        .iter()
        .filter_map(|l| l.ticks.as_ref().map(|t| t.lock().expect("ticks lock")))
        .collect();
    let advanced = ticks_advanced(&states.iter().map(|g| &**g).collect::<Vec<_>>());
    drop(states);
    recorder.lock().expect("recorder lock").ticks_advanced = advanced;
    if config.workload == Workload::Write && config.verify {
        verify_writes(&sessions[0], config, recorder).await;
    }
    phase
}

pub async fn run_client(config: ClientConfig) -> Result<Value, Failure> {
    let config = Arc::new(config);
    let folder = WorkFolder::new("client")?;
    let key_pair = match (&config.security.certificate, &config.security.private_key) {
        (Some(cert), Some(key)) if config.security.policy != "None" => Some(stage_key_pair(&folder, cert, key)?),
        _ => None,
    };
    let client = tokio::sync::Mutex::new(make_client(&config, &folder.path, key_pair)?);

    // SPEC §3 Connection loss: every session's losses and restorations, from its set-up on.
    let connection = Arc::new(Mutex::new(Connection::new(config.sessions)));
    let opened: Vec<Result<UaSession, Failure>> = stream::iter(0..config.sessions)
        .map(|index| open(&client, &config, index, connection.clone()))
        .buffered(CONNECTING_AT_ONCE)
        .collect()
        .await;
    let mut sessions = Vec::with_capacity(opened.len());
    let mut failure = None;
    for result in opened {
        match result {
            Ok(session) => sessions.push(Arc::new(session)),
            Err(error) => failure = failure.or(Some(error)),
        }
    }
    if let Some(failure) = failure {
        for session in &sessions {
            session.close().await;
        }
        return Err(failure);
    }

    let recorder = Arc::new(Mutex::new(Recorder::new(config.timeline_ms, config.record_latencies)));
    for session in &sessions {
        recorder.lock().expect("recorder lock").session_ready(session.setup_ns);
    }
    let (phase, extra) = if config.workload == Workload::Subscribe {
        run_subscribe(&sessions, &config, &recorder)
            .await
            .map_err(Failure::Runtime)?
    } else {
        (run_requests(&sessions, &config, &recorder).await, Map::new())
    };
    futures::future::join_all(sessions.iter().map(|s| s.close())).await;
    let mut recorder = recorder.lock().expect("recorder lock");
    recorder.start_ns = wall_ns(phase.measure_from);
    recorder.end_ns = wall_ns(phase.measure_until);
    let connection = connection.lock().expect("connection lock").record();
    drop(folder);
    Ok(recorder.result(crate::SDK_VERSION, &config.filled, connection, extra))
}
