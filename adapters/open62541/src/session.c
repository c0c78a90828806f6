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

static UA_Client *new_client(const client_config *config, UA_EventLoop *loop,
                             const UA_ByteString *certificate, const UA_ByteString *key) {
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
    /* Message sizes (SPEC §3): localConnectionConfig stays UA_ConnectionConfig_default, which
     * accepts 512 MiB in up to 16384 chunks, far above the contract's 8 MiB. */
    /* Must equal the URI in the certificate's SAN, or the server refuses the session. */
    /* Enough PublishRequests in flight that no subscription waits for one. */
    int publish = 2 * config->subscriptions;
    cc.outStandingPublishRequests = (UA_UInt16)(publish > 10 ? publish : 10);
    UA_String_clear(&cc.clientDescription.applicationUri);
    cc.clientDescription.applicationUri = UA_STRING_ALLOC(config->application_uri);
    UA_Client *client = UA_Client_newWithConfig(&cc);
    log_restore(level);
    if(!client)
        fail("runtime", EXIT_RUNTIME, "cannot create a client");
    return client;
}

void sessions_open(const client_config *config, session_set *set) {
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
    for(int s = 0; s < set->count; s++) {
        set->clients[s] = new_client(config, set->loop, &certificate, &key);
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
    }
    UA_ByteString_clear(&certificate);
    UA_ByteString_clear(&key);
}

void sessions_close(session_set *set) {
    log_quiet(); /* late PublishResponses of closed subscriptions are expected */
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
}
