/* The publisher role (SPEC §8): the standard address space with its update loop at the
 * publishing interval, one PublishedDataSet per DataSetWriter over its share of the Signal_i
 * variables, one WriterGroup whose NetworkMessages carry one DataSetMessage each. The SDK
 * samples, encodes and sends (its own EventLoop UDP socket, its own publish timer). */
#include "publisher.h"

#include "address_space.h"
#include "json_out.h"
#include "model.h"
#include "pubsub_common.h"
#include "sdk_compat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void check(UA_StatusCode rv, const char *what) {
    if(rv != UA_STATUSCODE_GOOD)
        fail("runtime", EXIT_RUNTIME, "%s failed: %s", what, UA_StatusCode_name(rv));
}

/* PublishedDataSet number k with the Signal_i of writer k, in order. */
static UA_NodeId add_dataset(UA_Server *server, const pubsub_config *config, UA_UInt16 ns,
                             int k) {
    char name[48];
    snprintf(name, sizeof(name), "Signals %d", k);
    UA_PublishedDataSetConfig pds;
    memset(&pds, 0, sizeof(pds));
    pds.publishedDataSetType = UA_PUBSUB_DATASET_PUBLISHEDITEMS;
    pds.name = UA_STRING(name);
    UA_NodeId pds_id;
    check(UA_Server_addPublishedDataSet(server, &pds, &pds_id).addResult,
          "adding a PublishedDataSet");

    int first, count;
    pubsub_writer_fields(config, k, &first, &count);
    for(int i = first; i < first + count; i++) {
        char signal[32];
        snprintf(signal, sizeof(signal), "Signal_%d", i);
        UA_DataSetFieldConfig field;
        memset(&field, 0, sizeof(field));
        field.dataSetFieldType = UA_PUBSUB_DATASETFIELD_VARIABLE;
        field.field.variable.fieldNameAlias = UA_STRING(signal);
        field.field.variable.publishParameters.publishedVariable = UA_NODEID_STRING(ns, signal);
        field.field.variable.publishParameters.attributeId = UA_ATTRIBUTEID_VALUE;
        check(UA_Server_addDataSetField(server, pds_id, &field, NULL).result,
              "adding a DataSetField");  /* the SDK copies the config (and the strings) */
    }
    return pds_id;
}

static UA_NodeId add_writer_group(UA_Server *server, const pubsub_config *config,
                                  UA_NodeId connection) {
    UA_WriterGroupConfig wg;
    memset(&wg, 0, sizeof(wg));
    wg.name = UA_STRING("uabench");
    wg.enabled = false; /* enabled after startup: components cannot be added to an enabled group */
    wg.writerGroupId = (UA_UInt16)config->writer_group_id;
    wg.publishingInterval = config->publishing_interval_ms;
    wg.encodingMimeType = UA_PUBSUB_ENCODING_UADP;
    wg.maxEncapsulatedDataSetMessageCount = 1; /* one DataSetMessage per NetworkMessage */
    UA_UadpWriterGroupMessageDataType message;
    UA_UadpWriterGroupMessageDataType_init(&message);
    message.networkMessageContentMask = (UA_UadpNetworkMessageContentMask)(
        UA_UADPNETWORKMESSAGECONTENTMASK_PUBLISHERID | UA_UADPNETWORKMESSAGECONTENTMASK_GROUPHEADER |
        UA_UADPNETWORKMESSAGECONTENTMASK_WRITERGROUPID |
        UA_UADPNETWORKMESSAGECONTENTMASK_SEQUENCENUMBER |
        UA_UADPNETWORKMESSAGECONTENTMASK_PAYLOADHEADER);
    UA_ExtensionObject_setValue(&wg.messageSettings, &message,
                                &UA_TYPES[UA_TYPES_UADPWRITERGROUPMESSAGEDATATYPE]);
    UA_NodeId id;
    check(UA_Server_addWriterGroup(server, connection, &wg, &id), "adding the WriterGroup");
    return id;
}

static void add_writer(UA_Server *server, const pubsub_config *config, UA_NodeId group,
                       UA_NodeId dataset, int k) {
    char name[48];
    snprintf(name, sizeof(name), "Writer %d", k);
    UA_DataSetWriterConfig writer;
    memset(&writer, 0, sizeof(writer));
    writer.name = UA_STRING(name);
#if UA_OPEN62541_VER_MINOR >= 5 /* 1.4's writers have no enabled flag: they follow their group */
    writer.enabled = false;
#endif
    writer.dataSetWriterId = (UA_UInt16)(config->dataset_writer_id + k);
    writer.keyFrameCount = 1;
    writer.dataSetFieldContentMask = UA_DATASETFIELDCONTENTMASK_NONE; /* Variant encoding */
    UA_UadpDataSetWriterMessageDataType message;
    UA_UadpDataSetWriterMessageDataType_init(&message);
    message.dataSetMessageContentMask = (UA_UadpDataSetMessageContentMask)(
        UA_UADPDATASETMESSAGECONTENTMASK_TIMESTAMP |
        UA_UADPDATASETMESSAGECONTENTMASK_SEQUENCENUMBER);
    UA_ExtensionObject_setValue(&writer.messageSettings, &message,
                                &UA_TYPES[UA_TYPES_UADPDATASETWRITERMESSAGEDATATYPE]);
    check(UA_Server_addDataSetWriter(server, group, dataset, &writer, NULL),
          "adding a DataSetWriter");
}

int publisher_main(const char *config_path) {
    pubsub_config config;
    pubsub_config_load(config_path, &config, false);

    UA_Server *server = pubsub_server_new();
    server_config model;
    memset(&model, 0, sizeof(model));
    model.signals = config.signals;
    model.writes = 0;
    model.update_interval_ms = (int)lround(config.publishing_interval_ms);
    if(model.update_interval_ms < 1)
        model.update_interval_ms = 1;
    check(address_space_build(server, &model), "building the address space");
    check(address_space_start_updates(server, &model), "starting the update loop");
    size_t ns = 0;
    check(UA_Server_getNamespaceByName(server, UA_STRING(MODEL_NAMESPACE_URI), &ns),
          "looking up the model namespace");

    UA_NetworkAddressUrlDataType url;
    UA_PubSubConnectionConfig connection_config;
    pubsub_connection_config(&config, &url, &connection_config);
    UA_NodeId connection;
    check(UA_Server_addPubSubConnection(server, &connection_config, &connection),
          "adding the PubSubConnection");
    UA_NodeId group = add_writer_group(server, &config, connection);
    for(int k = 0; k < config.writers; k++)
        add_writer(server, &config, group, add_dataset(server, &config, (UA_UInt16)ns, k), k);

    pubsub_handle_signals();
    check(UA_Server_run_startup(server), "starting the server");
#if UA_OPEN62541_VER_MINOR < 5
    /* 1.4 has no UA_Server_enableAllPubSubComponents: a WriterGroup is set operational by
     * itself, and takes its connection and writers with it (ua_pubsub_writergroup.c) */
    check(UA_Server_setWriterGroupOperational(server, group), "enabling PubSub");
    UA_PubSubState state = UA_PUBSUBSTATE_DISABLED;
    UA_Server_WriterGroup_getState(server, group, &state);
#else
    check(UA_Server_enableAllPubSubComponents(server), "enabling PubSub");
    UA_PubSubState state = UA_PUBSUBSTATE_DISABLED;
    UA_Server_getWriterGroupState(server, group, &state);
#endif
    if(state != UA_PUBSUBSTATE_OPERATIONAL)
        fail("runtime", EXIT_RUNTIME, "the WriterGroup is in state %d, not Operational (cannot "
             "send to %s on interface %s?)", (int)state, config.address, config.interface);

    char *line = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&line, &length);
    fputs("{\"event\":\"ready\",\"address\":", out);
    json_write_string(out, config.address);
    fprintf(out, ",\"writers\":%d,\"pid\":%d}", config.writers, (int)getpid());
    fclose(out);
    emit_line(line, length);
    free(line);

    /* A signal interrupts the EventLoop's epoll wait, so the flag is seen at once. */
    while(!pubsub_stop_requested)
        UA_Server_run_iterate(server, true);

    UA_Server_run_shutdown(server);
    UA_Server_delete(server);
    return 0;
}
