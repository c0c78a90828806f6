/* uabench adapter for open62541: `capabilities`, `server --config FILE`,
 * `client --config FILE`, `publisher --config FILE`, `subscriber --config FILE`
 * (adapters/SPEC.md). */
#include "client.h"
#include "config.h"
#include "json_out.h"
#include "publisher.h"
#include "sdk_compat.h"
#include "server.h"
#include "subscriber.h"
#include "version.h"

#include <jansson.h>
#include <open62541/config.h>
#include <stdio.h>
#include <string.h>

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

const char *sdk_version(void) {
    return STRINGIFY(UA_OPEN62541_VER_MAJOR) "." STRINGIFY(UA_OPEN62541_VER_MINOR) "."
        STRINGIFY(UA_OPEN62541_VER_PATCH);
}

#if UA_OPEN62541_VER_MINOR < 5 /* 1.4: no subscriber (subscriber.c says why) */
#define ROLES "[\"server\",\"client\",\"publisher\"]"
#else
#define ROLES "[\"server\",\"client\",\"publisher\",\"subscriber\"]"
#endif

static int capabilities(void) {
    char line[1024];
    int length = snprintf(line, sizeof(line),
        "{\"sdk\":\"%s\",\"version\":\"%s\",\"language\":\"C\","
        "\"roles\":" ROLES ","
        "\"workloads\":[\"read\",\"write\",\"subscribe\"],\"security\":["
        "{\"policy\":\"None\",\"mode\":\"None\"}", SDK_ID, sdk_version());
    for(int p = POLICY_BASIC256SHA256; p < POLICY_COUNT; p++)
        for(int m = MODE_SIGN; m < MODE_COUNT; m++)
            length += snprintf(line + length, sizeof(line) - (size_t)length,
                               ",{\"policy\":\"%s\",\"mode\":\"%s\"}", POLICY_NAMES[p],
                               MODE_NAMES[m]);
    length += snprintf(line + length, sizeof(line) - (size_t)length, "]}");
    emit_line(line, (size_t)length);
    return 0;
}

int main(int argc, char **argv) {
    /* Jansson seeds its hash tables from /dev/urandom, and the seed decides the allocations a
     * config's objects take, so the heap layout the address space is then built in. open62541's
     * zip trees rank nodes by a hash of their addresses: the instructions a lookup takes follow
     * that layout. A fixed seed makes a server's count per request repeat from process to process
     * (uabench run instructions: 0.22 % apart before, 0.002 % with it and the same certificates).
     * The configs come from the harness, so their hash tables need no defence against floods. */
    json_object_seed(0x5eed);
    const char *command = argc > 1 ? argv[1] : "";
    if(strcmp(command, "capabilities") == 0 && argc == 2)
        return capabilities();
    int has_config = argc == 4 && strcmp(argv[2], "--config") == 0;
    if(strcmp(command, "server") == 0 && has_config)
        return server_main(argv[3]);
    if(strcmp(command, "client") == 0 && has_config)
        return client_main(argv[3]);
    if(strcmp(command, "publisher") == 0 && has_config)
        return publisher_main(argv[3]);
    if(strcmp(command, "subscriber") == 0 && has_config)
        return subscriber_main(argv[3]);
    fprintf(stderr, "usage: run capabilities | run {server|client|publisher|subscriber} --config "
                    "FILE\n");
    return 2;
}
