#include "pubsub_common.h"

#include "json_out.h"
#include "log.h"
#include "sdk_compat.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <open62541/server_config_default.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

volatile sig_atomic_t pubsub_stop_requested;

static void request_stop(int signal_number) {
    (void)signal_number;
    pubsub_stop_requested = 1;
}

void pubsub_handle_signals(void) {
    struct sigaction action;
    memset(&action, 0, sizeof(action));
    action.sa_handler = request_stop;
    sigaction(SIGTERM, &action, NULL);
    sigaction(SIGINT, &action, NULL);
}

static int free_loopback_port(void) {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = 0};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    int port = 0;
    if(fd >= 0 && bind(fd, (struct sockaddr *)&address, sizeof(address)) == 0 &&
       getsockname(fd, (struct sockaddr *)&address, &length) == 0)
        port = ntohs(address.sin_port);
    if(fd >= 0)
        close(fd);
    return port;
}

UA_Server *pubsub_server_new(void) {
    int port = free_loopback_port();
    if(port == 0)
        fail("runtime", EXIT_RUNTIME, "no free TCP port on 127.0.0.1 for the SDK's server socket "
             "(is the loopback interface up?)");
    UA_ServerConfig sc;
    memset(&sc, 0, sizeof(sc));
    sc.logging = stderr_logger();
    UA_LogLevel level = log_quiet();
    UA_StatusCode rv = UA_ServerConfig_setMinimal(&sc, (UA_UInt16)port, NULL);
    log_restore(level);
    char url[64];
    snprintf(url, sizeof(url), "opc.tcp://127.0.0.1:%d", port);
    UA_String server_url = UA_STRING(url);
    if(rv == UA_STATUSCODE_GOOD) {
        UA_Array_delete(sc.serverUrls, sc.serverUrlsSize, &UA_TYPES[UA_TYPES_STRING]);
        rv = UA_Array_copy(&server_url, 1, (void **)&sc.serverUrls, &UA_TYPES[UA_TYPES_STRING]);
        sc.serverUrlsSize = rv == UA_STATUSCODE_GOOD ? 1 : 0;
    }
    if(rv != UA_STATUSCODE_GOOD)
        fail("runtime", EXIT_RUNTIME, "server configuration failed: %s", UA_StatusCode_name(rv));
    /* A reader discards delta frames, and the contract sends key frames only. */
    sc.pubSubConfig.enableDeltaFrames = false;
    UA_Server *server = UA_Server_newWithConfig(&sc);
    if(!server)
        fail("runtime", EXIT_RUNTIME, "cannot create the server");
    return server;
}

void pubsub_connection_config(const pubsub_config *config, UA_NetworkAddressUrlDataType *url,
                              UA_PubSubConnectionConfig *out) {
    memset(out, 0, sizeof(*out));
    out->name = UA_STRING("uabench");
    out->enabled = false; /* UA_Server_enableAllPubSubComponents after startup */
    out->transportProfileUri = UA_STRING(UDP_UADP_PROFILE);
    /* The interface is given by its address: open62541 sets IP_MULTICAST_IF and joins the
     * group there, so nothing leaves through another interface. */
    url->networkInterface = UA_STRING(config->interface);
    url->url = UA_STRING(config->address);
    UA_Variant_setScalar(&out->address, url, &UA_TYPES[UA_TYPES_NETWORKADDRESSURLDATATYPE]);
#if UA_OPEN62541_VER_MINOR < 5
    /* 1.4 keeps the PublisherId's type beside the union; 1.5 made them one UA_PublisherId */
    out->publisherIdType = UA_PUBLISHERIDTYPE_UINT16;
    out->publisherId.uint16 = (UA_UInt16)config->publisher_id;
#else
    out->publisherId.idType = UA_PUBLISHERIDTYPE_UINT16;
    out->publisherId.id.uint16 = (UA_UInt16)config->publisher_id;
#endif
}
