//! The `server` role: an async-opcua Server with the standard address space and the endpoints
//! the config asks for, until SIGTERM/SIGINT.

use std::fs::File;
use std::path::PathBuf;
use std::time::Duration;

use opcua::nodes::{NodeSet2Import, NodeSetImport};
use opcua::server::diagnostics::NamespaceMetadata;
use opcua::server::node_manager::memory::{simple_node_manager, simple_node_manager_imports, SimpleNodeManager};
use opcua::server::{ServerBuilder, ANONYMOUS_USER_TOKEN_ID};
use serde_json::json;
use tokio::net::TcpSocket;

use crate::address_space;
use crate::config::ServerConfig;
use crate::json_out::{emit, Failure, StdoutToStderr};
use crate::model::NAMESPACE_URI;
use crate::security::{mode, policy, stage_key_pair, stage_trusted, WorkFolder};

/// SPEC §3 "Message sizes": at least 8 MiB per message; async-opcua's defaults are 65535 × 5
/// bytes and 1000 array elements (Array_10000 alone is 10 000), so both roles raise them.
pub const MAX_MESSAGE_SIZE: usize = 32 * 1024 * 1024;
pub const MAX_CHUNK_COUNT: usize = 4096;
pub const MAX_ARRAY_LENGTH: usize = 1_000_000;

/// SPEC §4 "Imported information models": each file of `nodesets` parsed by async-opcua's own
/// NodeSet2 loader (`NodeSet2Import`, crate feature `xml`), in order. A path that is not a
/// readable file is a config error; a file the loader refuses is a runtime error with its message.
fn nodeset_imports(paths: &[PathBuf]) -> Result<Vec<Box<dyn NodeSetImport>>, Failure> {
    paths
        .iter()
        .map(|path| {
            File::open(path)
                .and_then(|file| file.metadata())
                .and_then(|meta| {
                    if meta.is_file() {
                        Ok(())
                    } else {
                        Err(std::io::Error::other("not a regular file"))
                    }
                })
                .map_err(|e| Failure::Config(format!("config: key 'nodesets': cannot read {}: {e}", path.display())))?;
            // No dependent namespaces: a NodeSet2 file lists every namespace its indexes refer to
            // in its own NamespaceUris (IA's lists DI as ns=2, Machinery's DI and IA), and the
            // loader maps that table onto the server's NamespaceArray. Namespaces passed here
            // would be put before that table and shift the file's indexes.
            let import = NodeSet2Import::new("en", path, Vec::new())
                .map_err(|e| Failure::Runtime(format!("nodesets: {}: {e}", path.display())))?;
            Ok(Box::new(import) as Box<dyn NodeSetImport>)
        })
        .collect()
}

pub async fn run_server(config: ServerConfig) -> Result<(), Failure> {
    let imports = nodeset_imports(&config.nodesets)?;
    let folder = WorkFolder::new("server")?;
    let security = &config.security;
    let endpoint_url = format!("opc.tcp://{}:{}/", config.host, config.port);

    let mut builder = ServerBuilder::new()
        .application_name("uabench async-opcua server")
        .application_uri(security.application_uri.clone())
        .product_uri("urn:uabench:async-opcua")
        .create_sample_keypair(false)
        .pki_dir(&folder.path)
        // Only the configured client certificates are trusted (stage_trusted); the SDK puts any
        // other into <pki>/rejected and refuses the secure channel.
        .trust_client_certs(false)
        .host(config.host.clone())
        .port(config.port)
        .discovery_urls(vec![endpoint_url.clone()])
        .max_message_size(MAX_MESSAGE_SIZE)
        .max_chunk_count(MAX_CHUNK_COUNT)
        .max_array_length(MAX_ARRAY_LENGTH)
        .max_string_length(MAX_MESSAGE_SIZE)
        .max_byte_string_length(MAX_MESSAGE_SIZE)
        // The contract's ranges (1000 sessions per client) above the SDK's small defaults.
        .max_sessions(5000)
        .with_node_manager(simple_node_manager(
            NamespaceMetadata {
                namespace_uri: NAMESPACE_URI.to_string(),
                ..Default::default()
            },
            "uabench",
        ));
    let importing = !imports.is_empty();
    if importing {
        // The files' nodes go into one more in-memory node manager, after namespace 0's and
        // uabench's: the server builds it (imports every file, in order, into its address space
        // and the namespaces into the NamespaceArray) in builder.build() below. One manager for
        // all files, because the loader counts every namespace a file lists as its own (IA's DI).
        builder = builder.with_node_manager(simple_node_manager_imports(imports, "nodesets"));
    }
    {
        let limits = builder.limits_mut();
        limits.subscriptions.max_subscriptions_per_session = 10_000;
        limits.subscriptions.max_monitored_items_per_sub = 1_000_000;
        limits.subscriptions.max_monitored_item_queue_size = 10_000;
        limits.operational.max_monitored_items_per_call = 1_000_000;
    }
    if let (Some(certificate), Some(private_key)) = (&security.certificate, &security.private_key) {
        let (cert, key) = stage_key_pair(&folder, certificate, private_key)?;
        builder = builder.certificate_path(cert).private_key_path(key);
    }
    stage_trusted(&folder, &security.trusted_certificates)?;
    let user_tokens = [ANONYMOUS_USER_TOKEN_ID];
    for (i, endpoint) in security.endpoints.iter().enumerate() {
        builder = builder.add_endpoint(
            format!("endpoint_{i}"),
            (
                "/",
                policy(&endpoint.policy),
                mode(&endpoint.mode),
                &user_tokens as &[&str],
            ),
        );
    }
    let built = {
        // async-opcua 0.19.0's loader println!s each namespace it maps
        // (NodeSet2Import::register_namespaces); SPEC §2 keeps stdout for the protocol's lines.
        let _stdout = importing.then(StdoutToStderr::new);
        builder.build()
    };
    let (server, handle) = built.map_err(|e| Failure::Runtime(format!("server: {e}")))?;

    let manager = handle
        .node_managers()
        .get_of_type::<SimpleNodeManager>()
        .ok_or_else(|| Failure::Runtime("server: no SimpleNodeManager".into()))?;
    let ns = handle
        .get_namespace_index(NAMESPACE_URI)
        .ok_or_else(|| Failure::Runtime(format!("server: no namespace {NAMESPACE_URI}")))?;
    let nodes = address_space::build(&manager, ns, &config);
    let subscriptions = handle.subscriptions().clone();
    // Tick 0 with a SourceTimestamp, so values read before the first update verify (R4).
    address_space::update(&manager, &subscriptions, &nodes, 0);

    let listener = listen(&config.host, config.port).await?;
    let running = tokio::spawn(server.run_with(listener));

    if config.update_interval_ms > 0 {
        let period = Duration::from_millis(config.update_interval_ms);
        let manager = manager.clone();
        tokio::spawn(async move {
            let mut timer = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            timer.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
            let mut t = 0u64;
            loop {
                timer.tick().await;
                t += 1;
                address_space::update(&manager, &subscriptions, &nodes, t);
            }
        });
    }

    emit(&json!({"event": "ready", "endpoint": endpoint_url, "pid": std::process::id()}));
    crate::wait_for_stop().await;
    // The contract allows 5 s for shutdown: do not let slow sessions hold us longer than 3 s.
    handle.cancel();
    let _ = tokio::time::timeout(Duration::from_secs(3), running).await;
    drop(folder);
    Ok(())
}

/// The listening socket with SO_REUSEADDR, so a server killed a moment ago does not keep the
/// port from being bound again at once (its connections linger in TIME_WAIT).
async fn listen(host: &str, port: u16) -> Result<tokio::net::TcpListener, Failure> {
    let address = tokio::net::lookup_host((host, port))
        .await
        .ok()
        .and_then(|mut addresses| addresses.next())
        .ok_or_else(|| Failure::Runtime(format!("cannot resolve host '{host}'")))?;
    let bind = || -> std::io::Result<tokio::net::TcpListener> {
        let socket = if address.is_ipv4() {
            TcpSocket::new_v4()?
        } else {
            TcpSocket::new_v6()?
        };
        socket.set_reuseaddr(true)?;
        socket.bind(address)?;
        socket.listen(1024)
    };
    bind().map_err(|e| Failure::Runtime(format!("cannot listen on {address}: {e}")))
}
