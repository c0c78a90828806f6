#include "address_space.h"

#include "model.h"
#include "sdk_compat.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
    UA_UInt16 ns;
    int signals;
    UA_UInt32 tick;
    UA_NodeId tick_node;
    UA_NodeId *signal_nodes;  /* string NodeIds, built once for the update loop */
} model_state;

static model_state state;

static void publish(UA_Server *server);

static UA_NodeId node_id(const char *name) {
    /* UA_NODEID_STRING_ALLOC: the server copies NodeIds, but the update loop keeps these. */
    return UA_NODEID_STRING_ALLOC(state.ns, name);
}

static UA_StatusCode add_variable(UA_Server *server, const char *name, const UA_Variant *value,
                                  const UA_DataType *type, UA_Int32 value_rank,
                                  UA_Byte access) {
    UA_VariableAttributes attr = UA_VariableAttributes_default;
    attr.displayName = UA_LOCALIZEDTEXT("", (char *)name);
    attr.dataType = type->typeId;
    attr.valueRank = value_rank;
    UA_UInt32 dimension = (UA_UInt32)value->arrayLength;
    if(value_rank == UA_VALUERANK_ONE_DIMENSION) {
        attr.arrayDimensions = &dimension;
        attr.arrayDimensionsSize = 1;
    }
    attr.accessLevel = access;
    attr.userAccessLevel = access;
    attr.value = *value;
    UA_NodeId id = UA_NODEID_STRING(state.ns, (char *)name);
    UA_NodeId parent = UA_NODEID_STRING(state.ns, MODEL_OBJECT);
    return UA_Server_addVariableNode(
        server, id, parent, UA_NS0ID(HASCOMPONENT), UA_QUALIFIEDNAME(state.ns, (char *)name),
        UA_NS0ID(BASEDATAVARIABLETYPE), attr, NULL, NULL);
}

static UA_StatusCode add_scalar(UA_Server *server, const char *name, void *value, int type,
                                UA_Byte access) {
    UA_Variant variant;
    UA_Variant_setScalar(&variant, value, &UA_TYPES[type]);
    return add_variable(server, name, &variant, &UA_TYPES[type], UA_VALUERANK_SCALAR, access);
}

UA_StatusCode address_space_build(UA_Server *server, const server_config *config) {
    state.ns = UA_Server_addNamespace(server, MODEL_NAMESPACE_URI);
    state.signals = config->signals;

    UA_ObjectAttributes object = UA_ObjectAttributes_default;
    object.displayName = UA_LOCALIZEDTEXT("", MODEL_OBJECT);
    UA_StatusCode rv = UA_Server_addObjectNode(
        server, UA_NODEID_STRING(state.ns, MODEL_OBJECT), UA_NS0ID(OBJECTSFOLDER),
        UA_NS0ID(ORGANIZES), UA_QUALIFIEDNAME(state.ns, MODEL_OBJECT),
        UA_NS0ID(BASEOBJECTTYPE), object, NULL, NULL);

    const UA_Byte read = UA_ACCESSLEVELMASK_READ;
    const UA_Byte read_write = UA_ACCESSLEVELMASK_READ | UA_ACCESSLEVELMASK_WRITE;
    char name[32];
    state.signal_nodes = calloc((size_t)config->signals + 1, sizeof(UA_NodeId));
    for(int i = 0; i < config->signals && rv == UA_STATUSCODE_GOOD; i++) {
        snprintf(name, sizeof(name), "Signal_%d", i);
        UA_Float value = signal_value((uint32_t)i, 0);
        rv = add_scalar(server, name, &value, UA_TYPES_FLOAT, read);
        state.signal_nodes[i] = node_id(name);
    }

    UA_UInt32 tick = 0;
    UA_Float real = REAL_VALUE;
    if(rv == UA_STATUSCODE_GOOD)
        rv = add_scalar(server, "Tick", &tick, UA_TYPES_UINT32, read);
    state.tick_node = node_id("Tick");
    if(rv == UA_STATUSCODE_GOOD)
        rv = add_scalar(server, "Real", &real, UA_TYPES_FLOAT, read);

    UA_Variant page;
    UA_Variant_setArray(&page, (void *)model_page(), PAGE_LENGTH, &UA_TYPES[UA_TYPES_INT16]);
    if(rv == UA_STATUSCODE_GOOD)
        rv = add_variable(server, "Page", &page, &UA_TYPES[UA_TYPES_INT16],
                          UA_VALUERANK_ONE_DIMENSION, read);

    UA_ByteString sdd = {SDD_LENGTH, (UA_Byte *)model_sdd()};
    UA_ByteString image = {IMAGE_LENGTH, (UA_Byte *)model_image()};
    if(rv == UA_STATUSCODE_GOOD)
        rv = add_scalar(server, "SDD", &sdd, UA_TYPES_BYTESTRING, read);
    if(rv == UA_STATUSCODE_GOOD)
        rv = add_scalar(server, "Image", &image, UA_TYPES_BYTESTRING, read);

    static const struct { const char *name; size_t length; } arrays[] = {
        {"Array_10", 10}, {"Array_10000", ARRAY_MAX_LENGTH}};
    for(size_t a = 0; a < sizeof(arrays) / sizeof(arrays[0]) && rv == UA_STATUSCODE_GOOD; a++) {
        UA_Variant doubles;
        UA_Variant_setArray(&doubles, (void *)model_doubles(), arrays[a].length,
                            &UA_TYPES[UA_TYPES_DOUBLE]);
        rv = add_variable(server, arrays[a].name, &doubles, &UA_TYPES[UA_TYPES_DOUBLE],
                          UA_VALUERANK_ONE_DIMENSION, read);
    }

    for(int j = 0; j < config->writes && rv == UA_STATUSCODE_GOOD; j++) {
        snprintf(name, sizeof(name), "Write_%d", j);
        UA_Double zero = 0.0;
        rv = add_scalar(server, name, &zero, UA_TYPES_DOUBLE, read_write);
    }
    if(rv == UA_STATUSCODE_GOOD)
        publish(server); /* tick 0 gets its SourceTimestamp too */
    return rv;
}

static void write_scalar(UA_Server *server, const UA_NodeId *node, void *value, int type,
                         UA_DateTime now) {
    UA_DataValue dv;
    UA_DataValue_init(&dv);
    UA_Variant_setScalar(&dv.value, value, &UA_TYPES[type]);
    dv.hasValue = true;
    dv.sourceTimestamp = now;
    dv.hasSourceTimestamp = true;
    UA_Server_writeDataValue(server, *node, dv);
}

/* Tick and every Signal_i at the current tick, all with the same SourceTimestamp. */
static void publish(UA_Server *server) {
    UA_DateTime now = UA_DateTime_now();
    write_scalar(server, &state.tick_node, &state.tick, UA_TYPES_UINT32, now);
    for(int i = 0; i < state.signals; i++) {
        UA_Float value = signal_value((uint32_t)i, state.tick);
        write_scalar(server, &state.signal_nodes[i], &value, UA_TYPES_FLOAT, now);
    }
}

static void update(UA_Server *server, void *context) {
    (void)context;
    state.tick++;
    publish(server);
}

UA_StatusCode address_space_start_updates(UA_Server *server, const server_config *config) {
    if(config->update_interval_ms == 0)
        return UA_STATUSCODE_GOOD;
    return UA_Server_addRepeatedCallback(server, update, NULL,
                                         (UA_Double)config->update_interval_ms, NULL);
}
