#include "write_check.h"

#include "clock.h"

#include <open62541/client.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Requests stay well below any server's per-request operation limit. */
#define CHUNK 1000

double pattern_value(int pattern, size_t position) {
    return -(100000.0 * pattern + (double)position) - 0.25;
}

static char **sorted_names;

static int by_name_then_position(const void *a, const void *b) {
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    int order = strcmp(sorted_names[i], sorted_names[j]);
    return order ? order : (i > j) - (i < j);
}

/* If a node is listed twice, the server keeps the later write: expect that one. */
static size_t *last_positions(char **nodes, size_t count) {
    size_t *order = malloc(count * sizeof(size_t));
    size_t *last = malloc(count * sizeof(size_t));
    for(size_t i = 0; i < count; i++)
        order[i] = i;
    sorted_names = nodes;
    qsort(order, count, sizeof(size_t), by_name_then_position);
    for(size_t run = 0; run < count;) {
        size_t end = run + 1;
        while(end < count && strcmp(nodes[order[run]], nodes[order[end]]) == 0)
            end++;
        for(size_t i = run; i < end; i++)
            last[order[i]] = order[end - 1];
        run = end;
    }
    free(order);
    return last;
}

static void write_chunk(UA_Client *client, UA_UInt16 ns, char **nodes, size_t from, size_t n,
                        int pattern, recorder *rec) {
    UA_WriteValue *values = calloc(n, sizeof(UA_WriteValue));
    UA_Double *doubles = calloc(n, sizeof(UA_Double));
    for(size_t j = 0; j < n; j++) {
        doubles[j] = pattern_value(pattern, from + j);
        values[j].nodeId = UA_NODEID_STRING(ns, nodes[from + j]);
        values[j].attributeId = UA_ATTRIBUTEID_VALUE;
        values[j].value.hasValue = true;
        UA_Variant_setScalar(&values[j].value.value, &doubles[j], &UA_TYPES[UA_TYPES_DOUBLE]);
    }
    UA_WriteRequest request;
    UA_WriteRequest_init(&request);
    request.nodesToWrite = values;
    request.nodesToWriteSize = n;
    UA_WriteResponse response = UA_Client_Service_write(client, request);
    char text[200];
    if(response.responseHeader.serviceResult != UA_STATUSCODE_GOOD) {
        snprintf(text, sizeof(text), "verification write failed: %s",
                 UA_StatusCode_name(response.responseHeader.serviceResult));
        examples_add(&rec->verification_examples, text);
    }
    for(size_t j = 0; j < response.resultsSize; j++) {
        if(response.results[j] != UA_STATUSCODE_GOOD) {
            snprintf(text, sizeof(text), "%s: verification write failed: %s", nodes[from + j],
                     UA_StatusCode_name(response.results[j]));
            examples_add(&rec->verification_examples, text);
        }
    }
    UA_WriteResponse_clear(&response);
    free(values);
    free(doubles);
}

static void read_back_chunk(UA_Client *client, UA_UInt16 ns, char **nodes, size_t from,
                            size_t n, int pattern, const size_t *last, recorder *rec) {
    UA_ReadValueId *ids = calloc(n, sizeof(UA_ReadValueId));
    for(size_t j = 0; j < n; j++) {
        ids[j].nodeId = UA_NODEID_STRING(ns, nodes[from + j]);
        ids[j].attributeId = UA_ATTRIBUTEID_VALUE;
    }
    UA_ReadRequest request;
    UA_ReadRequest_init(&request);
    request.nodesToRead = ids;
    request.nodesToReadSize = n;
    request.maxAge = 0; /* SPEC §3: every Read asks maxAge 0 and Source timestamps */
    request.timestampsToReturn = UA_TIMESTAMPSTORETURN_SOURCE;
    UA_ReadResponse response = UA_Client_Service_read(client, request);
    char text[200];
    for(size_t j = 0; j < n; j++) {
        const char *node = nodes[from + j];
        double expected = pattern_value(pattern, last[from + j]);
        const UA_DataValue *dv = j < response.resultsSize ? &response.results[j] : NULL;
        if(!dv || (dv->hasStatus && dv->status != UA_STATUSCODE_GOOD)) {
            snprintf(text, sizeof(text), "%s: read-back failed: %s", node,
                     UA_StatusCode_name(dv ? dv->status
                                           : response.responseHeader.serviceResult));
            recorder_verification(rec, text);
        } else if(!UA_Variant_hasScalarType(&dv->value, &UA_TYPES[UA_TYPES_DOUBLE])) {
            snprintf(text, sizeof(text), "%s: read back a non-Double, expected %.17g", node,
                     expected);
            recorder_verification(rec, text);
        } else if(*(const UA_Double *)dv->value.data != expected) {
            snprintf(text, sizeof(text), "%s: read back %.17g, expected %.17g", node,
                     *(const UA_Double *)dv->value.data, expected);
            recorder_verification(rec, text);
        } else {
            recorder_verification(rec, NULL);
        }
    }
    UA_ReadResponse_clear(&response);
    free(ids);
}

void write_check_run(const client_config *config, const session_set *sessions,
                     recorder *rec) {
    UA_Client *client = sessions->clients[0];
    UA_UInt16 ns = sessions->namespace_index[0];
    int pattern = 1 + (int)((wall_ns() / 1000000000) % 1000);
    size_t count = config->nodes_count;
    size_t *last = last_positions(config->nodes, count);
    for(size_t from = 0; from < count; from += CHUNK)
        write_chunk(client, ns, config->nodes, from, count - from < CHUNK ? count - from : CHUNK,
                    pattern, rec);
    for(size_t from = 0; from < count; from += CHUNK)
        read_back_chunk(client, ns, config->nodes, from,
                        count - from < CHUNK ? count - from : CHUNK, pattern, last, rec);
    free(last);
}
