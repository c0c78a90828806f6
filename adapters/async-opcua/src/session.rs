//! One uabench session: its own SecureChannel and Session (async-opcua's `Session` with its
//! `SessionEventLoop` polled on a tokio task), the namespace index of urn:uabench:model as this
//! server numbers it, and its losses and restorations (SPEC §3 Connection loss) as the SDK's
//! event loop reports them.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use opcua::client::{
    Client, IdentityToken, Session, SessionActivity, SessionConnectMode, SessionPollResult, SubscriptionActivity,
};
use opcua::types::{AttributeId, DataValue, NodeId, ReadValueId, StatusCode, TimestampsToReturn, WriteValue};
use tokio::sync::oneshot;

use crate::clock::now_ns;
use crate::config::{ClientConfig, Workload};
use crate::connection::Connection;
use crate::json_out::Failure;
use crate::model::NAMESPACE_URI;
use crate::security::{mode, policy};

/// SPEC §2: a session that cannot be set up within 10 s (or request_timeout_ms, when that is
/// longer) is the `connect` error.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The bound on one session's set-up: max(10 s, request_timeout_ms). async-opcua has no connect
/// timeout of its own (its TCP connect and Hello/Acknowledge wait without one, its
/// OpenSecureChannel a fixed 30 s), so this bound is the only one on them; it must not cut the
/// SDK's request timeout short.
pub fn setup_timeout(config: &ClientConfig) -> Duration {
    config
        .request_timeout_ms
        .map_or(CONNECT_TIMEOUT, |ms| CONNECT_TIMEOUT.max(Duration::from_millis(ms)))
}

/// The session timeout asked for: the SDK's default, stated here because the subscribe
/// workload's lifetime is derived from it (SPEC §3 subscribe).
pub const SESSION_TIMEOUT_MS: u32 = 60_000;

/// The status codes of SPEC §3 "Connection loss" that mean the connection or session is down.
pub fn is_connection_status(status: StatusCode) -> bool {
    [
        StatusCode::BadConnectionClosed,
        StatusCode::BadSecureChannelClosed,
        StatusCode::BadSecureChannelIdInvalid,
        StatusCode::BadSessionClosed,
        StatusCode::BadSessionIdInvalid,
        StatusCode::BadSessionNotActivated,
        StatusCode::BadTimeout,
        StatusCode::BadRequestTimeout,
        StatusCode::BadNotConnected,
        StatusCode::BadServerNotConnected,
        StatusCode::BadCommunicationError,
        StatusCode::BadNoCommunication,
        StatusCode::BadDisconnect,
        StatusCode::BadServerHalted,
        StatusCode::BadConnectionRejected,
    ]
    .iter()
    .any(|bad| bad.bits() == status.bits() & 0xFFFF_0000)
}

/// What the run knows of one session's connection: shared by its event-loop task and the
/// workload's requests.
pub struct Health {
    connection: Arc<Mutex<Connection>>,
    index: usize,
    closing: AtomicBool,
    /// The loss came from the SDK's event loop, so its Reconnected event is the restoration;
    /// a loss seen only by a failed request is restored by the next request that succeeds.
    lost_by_event: AtomicBool,
    /// Counts the restorations: a request sent before the latest one that fails after it (its
    /// answer, or the SDK's error for the old connection, arrives late) is no new loss.
    epoch: AtomicU64,
    /// subscribe: the session's subscription ids when it was last up (to tell what the SDK's
    /// reconnection did with them).
    pub subscription_ids: Option<Mutex<BTreeSet<u32>>>,
}

impl Health {
    fn lost(&self, by_event: bool) {
        if self.closing.load(Ordering::Relaxed) {
            return;
        }
        let mut connection = self.connection.lock().expect("connection lock");
        if connection.mark_lost(self.index) {
            self.lost_by_event.store(by_event, Ordering::Relaxed);
        } else if by_event {
            self.lost_by_event.store(true, Ordering::Relaxed);
        }
    }

    /// The restoration count now: taken when a request is sent.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::Relaxed)
    }

    /// A request sent at `epoch` failed with `status`: a connection status marks the session lost.
    pub fn request_failed(&self, status: StatusCode, epoch: u64) {
        if is_connection_status(status) && epoch == self.epoch() {
            self.lost(false);
        }
    }

    fn restored(&self, connection: &mut Connection, fate: Option<&str>) {
        if connection.is_down(self.index) {
            self.epoch.fetch_add(1, Ordering::Relaxed);
            connection.mark_restored(self.index, fate);
        }
    }

    /// A request succeeded: restores a session lost by a request only.
    pub fn request_succeeded(&self) {
        if self.lost_by_event.load(Ordering::Relaxed) || self.closing.load(Ordering::Relaxed) {
            return;
        }
        let mut connection = self.connection.lock().expect("connection lock");
        // The session and its channel never went away: its subscriptions go on in it.
        let fate = self.subscription_ids.as_ref().map(|_| "transferred");
        self.restored(&mut connection, fate);
    }

    /// The SDK's event loop reconnected the session (after its own retries).
    fn reconnected(&self, session: &Session, connect_mode: &SessionConnectMode) {
        if self.closing.load(Ordering::Relaxed) {
            return;
        }
        let fate = self.subscription_ids.as_ref().map(|before| {
            let now: BTreeSet<u32> = session
                .subscription_state()
                .lock()
                .subscription_ids()
                .unwrap_or_default()
                .into_iter()
                .collect();
            let mut before = before.lock().expect("ids lock");
            // The SDK says nothing of what its reconnection did with the subscriptions
            // (transfer_subscriptions_from_old_session tries TransferSubscriptions, then
            // re-creates those it could not transfer and drops those it could not re-create);
            // its subscription state tells this much: one dropped is gone, new ids are
            // re-created ones, the same ids on the reactivated session are the old ones. The
            // same ids on a new session may be either (a restarted server numbers its
            // subscriptions from 1 again).
            let fate = if now.len() < before.len() {
                "lost"
            } else if now != *before {
                "recreated"
            } else if matches!(connect_mode, SessionConnectMode::ReactivatedSession(_)) {
                "transferred"
            } else {
                "unknown"
            };
            *before = now;
            fate
        });
        eprintln!(
            "session {}: reconnected ({connect_mode:?}), subscriptions {fate:?}",
            self.index
        );
        self.lost_by_event.store(false, Ordering::Relaxed);
        self.restored(&mut self.connection.lock().expect("connection lock"), fate);
    }
}

pub struct UaSession {
    pub index: usize,
    pub session: Arc<Session>,
    pub namespace: u16,
    pub setup_ns: i64,
    pub health: Arc<Health>,
}

/// Builds the run's Client: the SDK's defaults except where a comment says why.
pub fn make_client(
    config: &ClientConfig,
    pki_dir: &std::path::Path,
    key_pair: Option<(std::path::PathBuf, std::path::PathBuf)>,
) -> Result<Client, Failure> {
    let mut builder = opcua::client::ClientBuilder::new()
        .application_name("uabench async-opcua client")
        .application_uri(config.security.application_uri.clone())
        .product_uri("urn:uabench:async-opcua")
        .pki_dir(pki_dir)
        .create_sample_keypair(false)
        // SPEC §3: the client trusts the server certificate it is offered.
        .trust_server_certs(true)
        .verify_server_certs(false)
        // SPEC §3 "Message sizes": at least 8 MiB; the SDK's defaults are 65535 × 5 bytes and
        // 1000 array elements.
        .max_message_size(crate::server::MAX_MESSAGE_SIZE)
        .max_chunk_count(crate::server::MAX_CHUNK_COUNT)
        .max_array_length(crate::server::MAX_ARRAY_LENGTH)
        .max_string_length(crate::server::MAX_MESSAGE_SIZE)
        .max_byte_string_length(crate::server::MAX_MESSAGE_SIZE)
        // The subscribe workload asks for publishing intervals down to 1 ms; the SDK's client
        // would raise any below 100 ms before sending (its min_publish_interval), so the server
        // would never be asked for them.
        .min_publish_interval(Duration::from_millis(1))
        .session_timeout(SESSION_TIMEOUT_MS);
    if let Some(ms) = config.request_timeout_ms {
        // SPEC §3 request_timeout_ms: every request but Publish (the SDK's publish_timeout, left
        // at its default), GetEndpoints, CreateSession and ActivateSession included; unset, the
        // SDK's default (60 s).
        builder = builder.request_timeout(Duration::from_millis(ms));
    }
    if let Some((cert, key)) = key_pair {
        builder = builder.certificate_path(cert).private_key_path(key);
    }
    builder
        .client()
        .map_err(|errors| Failure::Runtime(format!("client config: {}", errors.join("; "))))
}

/// Opens session `index`: GetEndpoints, then the SDK's event loop opens the SecureChannel and
/// creates and activates the Session. A first connection that fails is the connect error: the
/// SDK's event loop would retry it, but SPEC wants the error within 10 s (or
/// request_timeout_ms), so the first failed attempt ends it.
pub async fn open(
    client: &tokio::sync::Mutex<Client>,
    config: &ClientConfig,
    index: usize,
    connection: Arc<Mutex<Connection>>,
) -> Result<UaSession, Failure> {
    let connect_error = |what: String| Failure::Connect(format!("connect to {}: {what}", config.endpoint));
    let started = now_ns();
    let setup = setup_timeout(config);
    let within = format!("within {} s", setup.as_secs_f64());
    let deadline = tokio::time::Instant::now() + setup;
    let endpoint = (
        config.endpoint.as_str(),
        policy(&config.security.policy).to_uri(),
        mode(&config.security.mode),
    );
    let (session, event_loop) = {
        let mut client = client.lock().await;
        tokio::time::timeout_at(
            deadline,
            client.connect_to_matching_endpoint(endpoint, IdentityToken::Anonymous),
        )
        .await
        .map_err(|_| connect_error(format!("no answer to GetEndpoints {within}")))?
        .map_err(|e| connect_error(e.to_string()))?
    };
    let health = Arc::new(Health {
        connection,
        index,
        closing: AtomicBool::new(false),
        lost_by_event: AtomicBool::new(false),
        epoch: AtomicU64::new(0),
        subscription_ids: (config.workload == Workload::Subscribe).then(|| Mutex::new(BTreeSet::new())),
    });
    let (first_tx, first_rx) = oneshot::channel::<Result<(), StatusCode>>();
    let watcher = health.clone();
    let watched = session.clone();
    tokio::spawn(async move {
        let mut first = Some(first_tx);
        let stream = event_loop.enter();
        futures::pin_mut!(stream);
        while let Some(event) = stream.next().await {
            match event {
                Ok(SessionPollResult::Reconnected(connect_mode)) => match first.take() {
                    Some(tx) => {
                        let _ = tx.send(Ok(()));
                    }
                    None => watcher.reconnected(&watched, &connect_mode),
                },
                Ok(SessionPollResult::ReconnectFailed(status)) => {
                    if let Some(tx) = first.take() {
                        let _ = tx.send(Err(status));
                        return;
                    }
                }
                Ok(SessionPollResult::ConnectionLost(status)) => {
                    eprintln!("session {index}: connection lost ({status})");
                    watcher.lost(true);
                }
                // The keep-alive Read is a request too: one failing with a connection status is a
                // loss (a cut that only times out closes no channel), one succeeding after such a
                // loss the restoration.
                Ok(SessionPollResult::SessionActivity(SessionActivity::KeepAliveFailed(status))) => {
                    watcher.request_failed(status, watcher.epoch());
                }
                Ok(SessionPollResult::SessionActivity(SessionActivity::KeepAliveSucceeded)) => {
                    watcher.request_succeeded();
                }
                Ok(SessionPollResult::Subscription(
                    SubscriptionActivity::PublishFailed(status) | SubscriptionActivity::FatalFailure(status),
                )) => {
                    watcher.request_failed(status, watcher.epoch());
                }
                Ok(SessionPollResult::Subscription(SubscriptionActivity::Publish)) => {
                    watcher.request_succeeded();
                }
                Ok(_) => {}
                Err(status) => {
                    if let Some(tx) = first.take() {
                        let _ = tx.send(Err(status));
                    } else if !watcher.closing.load(Ordering::Relaxed) {
                        // The SDK's reconnection gave up (its session_retry_limit).
                        eprintln!("session {index}: the SDK stopped reconnecting ({status})");
                        watcher.lost(true);
                    }
                    return;
                }
            }
        }
        // The stream ends when the transport closed and reconnection is off (no ConnectionLost
        // is reported then) or when the adapter closed the session.
        if !watcher.closing.load(Ordering::Relaxed) && first.is_none() {
            eprintln!("session {index}: connection closed (no reconnection)");
            watcher.lost(true);
        }
    });
    match tokio::time::timeout_at(deadline, first_rx).await {
        Ok(Ok(Ok(()))) => {}
        Ok(Ok(Err(status))) => return Err(connect_error(format!("{status}"))),
        Ok(Err(_)) => return Err(connect_error("the session's event loop ended".into())),
        Err(_) => {
            health.closing.store(true, Ordering::Relaxed);
            let _ = tokio::time::timeout(Duration::from_secs(1), session.disconnect()).await;
            return Err(connect_error(format!("no session {within}")));
        }
    }
    // SPEC §6 session set-up: until the session is activated; the namespace lookup is not in it.
    let setup_ns = (now_ns() - started).max(1);
    let namespace = tokio::time::timeout(setup, session.get_namespace_index(NAMESPACE_URI))
        .await
        .map_err(|_| connect_error(format!("no NamespaceArray {within}")))?
        .map_err(|e| connect_error(format!("server has no namespace {NAMESPACE_URI}: {e}")))?;
    if !config.reconnect {
        // Without `reconnect` a lost connection stays lost (SPEC leaves it open; the other
        // adapters do the same): the SDK's automatic reconnection is turned off.
        session.disable_reconnects();
    }
    Ok(UaSession {
        index,
        session,
        namespace,
        setup_ns,
        health,
    })
}

impl UaSession {
    pub fn node_id(&self, name: &str) -> NodeId {
        NodeId::new(self.namespace, name)
    }

    /// Read service with maxAge 0 and TimestampsToReturn Source (SPEC §3).
    pub async fn read(&self, nodes: &[ReadValueId]) -> Result<Vec<DataValue>, StatusCode> {
        self.session
            .read(nodes, TimestampsToReturn::Source, 0.0)
            .await
            .map_err(|e| e.status())
    }

    pub async fn write(&self, nodes: &[WriteValue]) -> Result<Vec<StatusCode>, StatusCode> {
        self.session.write(nodes).await.map_err(|e| e.status())
    }

    pub async fn close(&self) {
        self.health.closing.store(true, Ordering::Relaxed);
        let _ = tokio::time::timeout(Duration::from_secs(2), self.session.disconnect()).await;
    }
}

pub fn read_value_id(node_id: NodeId) -> ReadValueId {
    ReadValueId {
        node_id,
        attribute_id: AttributeId::Value as u32,
        ..Default::default()
    }
}
