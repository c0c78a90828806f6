#include "server.h"

#include "address_space.h"
#include "config.h"
#include "json_out.h"
#include "log.h"
#include "sdk_compat.h"
#include "security.h"

#include <errno.h>
#include <netdb.h>
#include <sys/socket.h>
#include <open62541/plugin/accesscontrol_default.h>
#if UA_OPEN62541_VER_MINOR < 5
#include <open62541/plugin/pki_default.h> /* 1.4's PKI: UA_CertificateVerification */
#else
#include <open62541/plugin/certificategroup_default.h>
#endif
#include <open62541/server_config_default.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;

static void request_stop(int signal_number) {
    (void)signal_number;
    stop_requested = 1;
}

static void load_or_fail(const char *key, const char *path, UA_ByteString *out) {
    if(!load_file(path, out))
        fail("config", EXIT_CONFIG, "config: key '%s': cannot read %s: %s", key, path,
             strerror(errno));
}

static bool is_secure(const server_config *config) {
    for(size_t i = 0; i < config->endpoints_count; i++)
        if(config->endpoints[i].policy != POLICY_NONE)
            return true;
    return false;
}

/* Only the configured client certificates are trusted; an empty list trusts nobody. (The
 * SDK's default accepts every certificate, and its setDefault... helpers keep that default
 * when the trust list is empty, so the PKI is always set here.) */
static UA_StatusCode set_trust_list(UA_ServerConfig *sc, const server_config *config) {
    UA_TrustListDataType list;
    UA_TrustListDataType_init(&list);
    list.specifiedLists = UA_TRUSTLISTMASKS_TRUSTEDCERTIFICATES;
    list.trustedCertificatesSize = config->trusted_count;
    list.trustedCertificates = config->trusted_count
        ? calloc(config->trusted_count, sizeof(UA_ByteString)) : NULL;
    for(size_t i = 0; i < config->trusted_count; i++)
        load_or_fail("security.trusted_certificates", config->trusted_certificates[i],
                     &list.trustedCertificates[i]);

#if UA_OPEN62541_VER_MINOR < 5
    /* 1.4 has no certificate groups (1.5's UA_CertificateGroup, OPC 10000-12 push model): its
     * PKI is a UA_CertificateVerification per use, filled from a list of trusted DER
     * certificates. An empty list trusts nobody there too: a self-signed certificate is
     * accepted only if it is in the list (ua_pki_openssl.c, openSSL_verifyChain). */
    UA_StatusCode rv = UA_CertificateVerification_Trustlist(
        &sc->secureChannelPKI, list.trustedCertificates, list.trustedCertificatesSize, NULL, 0,
        NULL, 0);
    if(rv == UA_STATUSCODE_GOOD)
        rv = UA_CertificateVerification_Trustlist(&sc->sessionPKI, list.trustedCertificates,
                                                  list.trustedCertificatesSize, NULL, 0, NULL,
                                                  0);
#else
    UA_NodeId application_group =
        UA_NS0ID(SERVERCONFIGURATION_CERTIFICATEGROUPS_DEFAULTAPPLICATIONGROUP);
    UA_NodeId user_token_group =
        UA_NS0ID(SERVERCONFIGURATION_CERTIFICATEGROUPS_DEFAULTUSERTOKENGROUP);
    UA_StatusCode rv = UA_CertificateGroup_Memorystore(&sc->secureChannelPKI,
                                                       &application_group, &list,
                                                       sc->logging, NULL);
    if(rv == UA_STATUSCODE_GOOD)
        rv = UA_CertificateGroup_Memorystore(&sc->sessionPKI, &user_token_group, &list,
                                             sc->logging, NULL);
#endif
    UA_TrustListDataType_clear(&list);
    return rv;
}

static UA_StatusCode add_policy(UA_ServerConfig *sc, security_policy policy,
                                const UA_ByteString *certificate, const UA_ByteString *key) {
    switch(policy) {
    case POLICY_BASIC256SHA256:
        return UA_ServerConfig_addSecurityPolicyBasic256Sha256(sc, certificate, key);
    case POLICY_AES128_SHA256_RSAOAEP:
        return UA_ServerConfig_addSecurityPolicyAes128Sha256RsaOaep(sc, certificate, key);
    case POLICY_AES256_SHA256_RSAPSS:
        return UA_ServerConfig_addSecurityPolicyAes256Sha256RsaPss(sc, certificate, key);
    default:
        return UA_STATUSCODE_GOOD; /* None is always there (setMinimal adds it) */
    }
}

/* Exactly the endpoints of the config. Policy None stays registered for discovery
 * (GetEndpoints) but serves nothing else unless a None endpoint is configured. */
static UA_StatusCode set_endpoints(UA_ServerConfig *sc, const server_config *config,
                                   const UA_ByteString *certificate, const UA_ByteString *key) {
    UA_StatusCode rv = UA_STATUSCODE_GOOD;
    bool added[POLICY_COUNT] = {true};
    for(size_t i = 0; i < config->endpoints_count && rv == UA_STATUSCODE_GOOD; i++) {
        security_policy policy = config->endpoints[i].policy;
        if(!added[policy])
            rv = add_policy(sc, policy, certificate, key);
        added[policy] = true;
    }
    if(rv != UA_STATUSCODE_GOOD)
        return rv;

    UA_Array_delete(sc->endpoints, sc->endpointsSize,
                    &UA_TYPES[UA_TYPES_ENDPOINTDESCRIPTION]);
    sc->endpoints = NULL;
    sc->endpointsSize = 0;
    bool none_endpoint = false;
    for(size_t i = 0; i < config->endpoints_count && rv == UA_STATUSCODE_GOOD; i++) {
        endpoint_security e = config->endpoints[i];
        bool duplicate = false;
        for(size_t j = 0; j < i; j++)
            duplicate |= config->endpoints[j].policy == e.policy &&
                         config->endpoints[j].mode == e.mode;
        if(!duplicate)
            rv = UA_ServerConfig_addEndpoint(sc, policy_uri(e.policy),
                                             message_security_mode(e.mode));
        none_endpoint |= e.policy == POLICY_NONE;
    }
    sc->securityPolicyNoneDiscoveryOnly = !none_endpoint;
    if(rv == UA_STATUSCODE_GOOD) /* user token policies follow the security policies */
        rv = UA_AccessControl_default(sc, true, NULL, 0, NULL);
    return rv;
}

/* The contract allows up to 1000 sessions and intervals down to 1 ms; the SDK's defaults
 * (100 sessions, >= 100 ms publishing, queues <= 100) would silently revise them.
 * Message sizes (SPEC §3): tcpMaxMsgSize and tcpMaxChunks stay 0, unbounded, so requests and
 * responses of any size (above the contract's 8 MiB) pass. */
static void set_limits(UA_ServerConfig *sc) {
    sc->maxSecureChannels = 1100;
    sc->maxSessions = 1100;
    sc->publishingIntervalLimits.min = 1.0;
    sc->samplingIntervalLimits.min = 1.0;
    sc->queueSizeLimits.max = 10000;
}

static UA_StatusCode configure(UA_ServerConfig *sc, const server_config *config) {
    UA_ByteString certificate = UA_BYTESTRING_NULL, key = UA_BYTESTRING_NULL;
    if(config->certificate)
        load_or_fail("security.certificate", config->certificate, &certificate);
    if(config->private_key)
        load_or_fail("security.private_key", config->private_key, &key);

    memset(sc, 0, sizeof(*sc));
    sc->logging = stderr_logger();
    UA_StatusCode rv = UA_ServerConfig_setMinimalCustomBuffer(
        sc, (UA_UInt16)config->port, config->certificate ? &certificate : NULL, 0, 0);

    char url[300];
    snprintf(url, sizeof(url), "opc.tcp://%s:%d", config->host, config->port);
    UA_String server_url = UA_STRING(url);
    if(rv == UA_STATUSCODE_GOOD) {
        UA_Array_delete(sc->serverUrls, sc->serverUrlsSize, &UA_TYPES[UA_TYPES_STRING]);
        rv = UA_Array_copy(&server_url, 1, (void **)&sc->serverUrls,
                           &UA_TYPES[UA_TYPES_STRING]);
        sc->serverUrlsSize = rv == UA_STATUSCODE_GOOD ? 1 : 0;
    }
    if(rv == UA_STATUSCODE_GOOD) {
        UA_String_clear(&sc->applicationDescription.applicationUri);
        sc->applicationDescription.applicationUri = UA_STRING_ALLOC(config->application_uri);
    }
    if(rv == UA_STATUSCODE_GOOD && is_secure(config))
        rv = set_trust_list(sc, config);
    if(rv == UA_STATUSCODE_GOOD)
        rv = set_endpoints(sc, config, &certificate, &key);
    set_limits(sc);
    UA_ByteString_clear(&certificate);
    UA_ByteString_clear(&key);
    return rv;
}

/* The SDK binds with SO_REUSEADDR and SO_REUSEPORT, so a second server on a busy port
 * would share it silently. A plain SO_REUSEADDR bind fails only if something listens
 * there (not for connections left in TIME_WAIT by a previous run). */
static void check_port_free(const server_config *config) {
    char port[8];
    snprintf(port, sizeof(port), "%d", config->port);
    struct addrinfo hints = {0}, *addresses = NULL;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE;
    if(getaddrinfo(config->host, port, &hints, &addresses) != 0)
        return; /* the SDK reports unusable hosts itself */
    for(struct addrinfo *a = addresses; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if(fd < 0)
            continue;
        int on = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
        int in_use = bind(fd, a->ai_addr, a->ai_addrlen) != 0 && errno == EADDRINUSE;
        close(fd);
        if(in_use) {
            freeaddrinfo(addresses);
            fail("runtime", EXIT_RUNTIME, "cannot listen on %s:%d: address already in use",
                 config->host, config->port);
        }
    }
    freeaddrinfo(addresses);
}

/* SPEC §4 Imported information models: not supported by open62541 as built here, whatever
 * the files (implementations/open62541/sdk.toml [not_supported] nodeset_import says why, and
 * README.md what its loader did when it was built in). */
static void import_nodesets(const server_config *config) {
    if(config->nodesets_count > 0)
        fail("not_supported", EXIT_NOT_SUPPORTED,
             "nodesets: open62541 %s as built here has no working run-time NodeSet2 loader: "
             "UA_ENABLE_NODESETLOADER needs the full namespace 0, whose UA-Nodeset files the "
             "crate open62541-sys does not carry, and with the reduced one it imports none of "
             "DI's nodes and still returns Good", UA_OPEN62541_VERSION);
}

static void emit_ready(const server_config *config) {
    char line[400];
    int length = snprintf(line, sizeof(line),
                          "{\"event\":\"ready\",\"endpoint\":\"opc.tcp://%s:%d\",\"pid\":%d}",
                          config->host, config->port, (int)getpid());
    emit_line(line, (size_t)length);
}

int server_main(const char *config_path) {
    server_config config;
    server_config_load(config_path, &config);
    import_nodesets(&config); /* refused before anything is built */

    UA_ServerConfig sc;
    UA_LogLevel level = log_quiet(); /* the SDK warns that anonymous access is open */
    UA_StatusCode rv = configure(&sc, &config);
    log_restore(level);
    if(rv != UA_STATUSCODE_GOOD)
        fail("runtime", EXIT_RUNTIME, "server configuration failed: %s",
             UA_StatusCode_name(rv));
    UA_Server *server = UA_Server_newWithConfig(&sc);
    if(!server)
        fail("runtime", EXIT_RUNTIME, "cannot create the server");

    rv = address_space_build(server, &config);
    if(rv == UA_STATUSCODE_GOOD)
        rv = address_space_start_updates(server, &config);
    if(rv != UA_STATUSCODE_GOOD)
        fail("runtime", EXIT_RUNTIME, "cannot build the address space: %s",
             UA_StatusCode_name(rv));

    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = request_stop;
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);

    check_port_free(&config);
    rv = UA_Server_run_startup(server);
    if(rv != UA_STATUSCODE_GOOD)
        fail("runtime", EXIT_RUNTIME, "cannot listen on %s:%d: %s", config.host, config.port,
             UA_StatusCode_name(rv));
    emit_ready(&config);

    /* A signal interrupts the EventLoop's epoll wait, so the flag is seen at once. */
    while(!stop_requested)
        UA_Server_run_iterate(server, true);

    UA_Server_run_shutdown(server);
    UA_Server_delete(server);
    return 0;
}
