#include "session.h"

#include "clock.h"
#include "json_out.h"
#include "log.h"
#include "model.h"
#include "security.h"

#include <errno.h>
#include <open62541/client_config_default.h>
#include <open62541/client_highlevel.h>
#include <stdlib.h>
#include <string.h>

static UA_EventLoop *new_event_loop(void) {
    UA_EventLoop *loop = UA_EventLoop_new_POSIX(stderr_logger());
    UA_ConnectionManager *tcp =
        UA_ConnectionManager_new_POSIX_TCP(UA_STRING("tcp connection manager"));
    if(!loop || !tcp)
        fail("runtime", EXIT_RUNTIME, "cannot create the EventLoop");
    loop->registerEventSource(loop, (UA_EventSource *)tcp);
    return loop;
}

static void load_or_fail(const char *key, const char *path, UA_ByteString *out) {
    if(!load_file(path, out))
        fail("config", EXIT_CONFIG, "config: key '%s': cannot read %s: %s", key, path,
             strerror(errno));
}

static const char *const CHANNEL_STATES[] = {
    "Closed", "ReverseListening", "Connecting", "Connected", "ReverseConnected", "RHESent",
    "HELSent", "HELReceived", "ACKSent", "AckReceived", "OPNSent", "Open", "Closing"};
static const char *const SESSION_STATES[] = {"Closed", "CreateRequested", "Created",
                                             "ActivateRequested", "Activated", "Closing"};

/* SPEC §3 Connection loss, from the SDK's state callback: a session is up while its
 * SecureChannel is open and its Session activated. Anything else after that is a loss (the
 * channel closed, the Session back to Created until it is re-activated on a new channel);
 * the Session activated again is its restoration. On a restoration the SDK has either
 * re-activated the same Session, whose subscriptions the server kept and the SDK still
 * holds (transferred), or, the old Session being gone (BadSessionIdInvalid), cleaned it up
 * with every subscription (their delete callbacks, subscribe.c) and created a new, empty one
 * (lost: the SDK re-creates no subscription). A bad connectStatus is the SDK giving up its
 * reconnection (logged: nothing restores the session after it). */
static void on_state(UA_Client *client, UA_SecureChannelState channel, UA_SessionState session,
                     UA_StatusCode connect_status) {
    session_watch *w = UA_Client_getContext(client);
    if(!w || !w->watching)
        return;
    bool up = channel == UA_SECURECHANNELSTATE_OPEN && session == UA_SESSIONSTATE_ACTIVATED;
    /* A request that failed as the channel closed may have marked the loss already. */
    if(!up)
        connection_mark_lost(w->connection, w->index, wall_ns());
    else
        connection_mark_restored(w->connection, w->index, wall_ns(),
                                 !w->subscribe           ? NULL
                                 : w->subscriptions > 0 ? SUBSCRIPTIONS_TRANSFERRED
                                                        : SUBSCRIPTIONS_LOST);
    if(up != w->up || connect_status != UA_STATUSCODE_GOOD)
        fprintf(stderr, "session %d %s: SecureChannel %s, Session %s, connect status %s\n",
                w->index, up == w->up ? "state" : up ? "up" : "down",
                CHANNEL_STATES[channel % 13], SESSION_STATES[session % 6],
                UA_StatusCode_name(connect_status));
    w->up = up;
}

/* No PublishResponse for a subscription in its keep-alive time plus the request timeout: the
 * SDK's word for a loss its state callback does not see (a path that drops every packet;
 * the first notification after it restores the session, subscribe.c). */
static void on_subscription_inactive(UA_Client *client, UA_UInt32 subscription_id,
                                     void *context) {
    (void)context;
    session_watch *w = UA_Client_getContext(client);
    if(w && w->watching && connection_mark_lost(w->connection, w->index, wall_ns()))
        fprintf(stderr, "session %d lost: subscription %u inactive\n", w->index,
                (unsigned)subscription_id);
}

static UA_Client *new_client(const client_config *config, UA_EventLoop *loop,
                             const UA_ByteString *certificate, const UA_ByteString *key,
                             session_watch *watch) {
    UA_ClientConfig cc;
    memset(&cc, 0, sizeof(cc));
    UA_LogLevel level = log_quiet();
    cc.logging = stderr_logger();
    cc.eventLoop = loop;
    cc.externalEventLoop = true;
    UA_StatusCode rv;
    if(config->security.policy == POLICY_NONE) {
        rv = UA_ClientConfig_setDefault(&cc);
    } else {
        /* No trust list: the client trusts the server certificate it is offered. */
        rv = UA_ClientConfig_setDefaultEncryption(&cc, *certificate, *key, NULL, 0, NULL, 0);
        cc.securityMode = message_security_mode(config->security.mode);
        UA_String uri = policy_uri(config->security.policy);
        UA_String_copy(&uri, &cc.securityPolicyUri);
    }
    if(rv != UA_STATUSCODE_GOOD)
        fail("runtime", EXIT_RUNTIME, "client configuration failed: %s",
             UA_StatusCode_name(rv));
    /* SPEC §3 `request_timeout_ms`: open62541 has one timeout for both, each request's (the
     * timeoutHint of every request but Publish, whose is 10 min) and UA_Client_connect as a
     * whole (TCP connect, HEL/ACK, OpenSecureChannel, GetEndpoints, CreateSession and
     * ActivateSession within one deadline; the connect's FindServers keeps its fixed 10 s, and
     * its timing out only logs a warning). setDefault above set 5000 ms only because the field
     * was 0; null leaves that. The adapter puts no bound of its own on the set-up. */
    if(config->request_timeout_ms > 0)
        cc.timeout = (UA_UInt32)config->request_timeout_ms;
    /* Message sizes (SPEC §3): localConnectionConfig stays UA_ConnectionConfig_default, which
     * accepts 512 MiB in up to 16384 chunks, far above the contract's 8 MiB. */
    /* Must equal the URI in the certificate's SAN, or the server refuses the session. */
    /* Enough PublishRequests in flight that no subscription waits for one. */
    int publish = 2 * config->subscriptions;
    cc.outStandingPublishRequests = (UA_UInt16)(publish > 10 ? publish : 10);
    /* SPEC §3 Connection loss: `reconnect` asks for the SDK's own reconnection, which is on
     * by default (noReconnect false) and stays on whatever `reconnect` says: the SDK's
     * connect needs it too (with a secure policy it opens a second SecureChannel after
     * GetEndpoints, which noReconnect refuses). When the connection breaks, the SDK opens a
     * new one at once and re-activates the Session on it, or creates a new Session if the
     * server no longer knows the old one; if that one attempt fails (a server still down
     * refuses it) it gives up for good (connectStatus Bad, logged by on_state). */
    cc.stateCallback = on_state;
    cc.subscriptionInactivityCallback = on_subscription_inactive;
    cc.clientContext = watch;
    UA_String_clear(&cc.clientDescription.applicationUri);
    cc.clientDescription.applicationUri = UA_STRING_ALLOC(config->application_uri);
    UA_Client *client = UA_Client_newWithConfig(&cc);
    log_restore(level);
    if(!client)
        fail("runtime", EXIT_RUNTIME, "cannot create a client");
    return client;
}

void sessions_open(const client_config *config, session_set *set, connection_log *connection) {
    UA_ByteString certificate = UA_BYTESTRING_NULL, key = UA_BYTESTRING_NULL;
    if(config->security.policy != POLICY_NONE) {
        load_or_fail("security.certificate", config->certificate, &certificate);
        load_or_fail("security.private_key", config->private_key, &key);
    }
    set->loop = new_event_loop();
    set->count = config->sessions;
    set->clients = calloc((size_t)set->count, sizeof(UA_Client *));
    set->namespace_index = calloc((size_t)set->count, sizeof(UA_UInt16));
    set->setup_ns = calloc((size_t)set->count, sizeof(int64_t));
    set->watch = calloc((size_t)set->count, sizeof(session_watch));
    for(int s = 0; s < set->count; s++) {
        set->watch[s] = (session_watch){connection, s, config->workload == WORKLOAD_SUBSCRIBE,
                                        false, false, 0};
        set->clients[s] = new_client(config, set->loop, &certificate, &key, &set->watch[s]);
        /* UA_Client_connect: GetEndpoints (secure policies), OpenSecureChannel,
         * CreateSession, ActivateSession; the namespace lookup below is not timed. */
        int64_t started = mono_ns();
        UA_StatusCode rv = UA_Client_connect(set->clients[s], config->endpoint);
        set->setup_ns[s] = mono_ns() - started;
        if(rv != UA_STATUSCODE_GOOD)
            fail("connect", EXIT_RUNTIME, "session %d: cannot connect to %s: %s", s,
                 config->endpoint, UA_StatusCode_name(rv));
        UA_String uri = UA_STRING(MODEL_NAMESPACE_URI);
        rv = UA_Client_NamespaceGetIndex(set->clients[s], &uri, &set->namespace_index[s]);
        if(rv != UA_STATUSCODE_GOOD)
            fail("runtime", EXIT_RUNTIME, "session %d: namespace %s not found on the server: %s",
                 s, MODEL_NAMESPACE_URI, UA_StatusCode_name(rv));
        set->watch[s].watching = set->watch[s].up = true; /* a loss from now on is an incident */
    }
    UA_ByteString_clear(&certificate);
    UA_ByteString_clear(&key);
}

void sessions_close(session_set *set) {
    log_quiet(); /* late PublishResponses of closed subscriptions are expected */
    for(int s = 0; s < set->count; s++)
        set->watch[s].watching = false; /* closing is no loss */
    for(int s = 0; s < set->count; s++) {
        UA_Client_disconnect(set->clients[s]);
        UA_Client_delete(set->clients[s]);
    }
    UA_EventLoop *loop = set->loop;
    loop->stop(loop);
    for(int i = 0; i < 100 && loop->state != UA_EVENTLOOPSTATE_STOPPED; i++)
        loop->run(loop, 10);
    if(loop->state == UA_EVENTLOOPSTATE_STOPPED)
        loop->free(loop);
    free(set->clients);
    free(set->namespace_index);
    free(set->setup_ns);
    free(set->watch);
}
