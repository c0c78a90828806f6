/* The subscriber role (SPEC §8). open62541 decodes and delivers: a ReaderGroup with one
 * DataSetReader per DataSetWriter, each writing its fields into target variables of this
 * process's own address space (callback value sources, which verify what they are given).
 *
 * The UDP socket is the adapter's: the PubSubConnection has a custom state machine (the
 * SDK's API for transports it does not manage) and each datagram is handed to it with
 * UA_Server_processPubSubConnectionReceive. Owning the socket is what lets the adapter count
 * UDP datagrams (the kernel reassembles IP fragments first), take the kernel's receive
 * timestamp (SO_TIMESTAMPNS), and read the NetworkMessage headers (sequence number,
 * DataSetMessage timestamp) that the SDK's reader does not expose. */
#include "subscriber.h"

#include "json_out.h"
#include "sdk_compat.h"
#include "version.h"

#if UA_OPEN62541_VER_MINOR < 5
/* open62541 1.4 decodes a subscription's datagrams where the application cannot see them: its
 * PubSubConnection has no custom state machine (the SDK always opens the socket itself) and
 * there is neither UA_Server_processPubSubConnectionReceive nor a public NetworkMessage decoder
 * (open62541/pubsub.h): all three are 1.5's. Without the datagrams and their headers this role
 * cannot count datagrams, the SequenceNumber's gaps (loss) or the DataSetMessage Timestamp's
 * delay (SPEC §8), so it is not supported there (sdk.toml [versions."1.4.17".not_supported]). */
int subscriber_main(const char *config_path) {
    (void)config_path;
    fail("not_supported", EXIT_NOT_SUPPORTED,
         "subscriber: open62541 %s gives the application neither the datagrams its PubSub "
         "subscription receives nor their NetworkMessage headers (no custom state machine, no "
         "UA_Server_processPubSubConnectionReceive, no public NetworkMessage decoding: all 1.5), "
         "which the subscriber's loss, delay and datagram counts are measured from",
         sdk_version());
}
#else

#include "clock.h"
#include "histogram.h"
#include "model.h"
#include "pubsub_common.h"
#include "recorder.h"
#include "verify.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <open62541/pubsub.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define DATAGRAM_CAPACITY 65536
#define FIRST_MESSAGE_TIMEOUT_NS 30000000000LL /* no NetworkMessage of ours for this long: give up */
#define RECEIVE_BUFFER_BYTES (32 * 1024 * 1024)
/* How long after the phase the datagrams it received are still processed: a subscriber
 * slower than the publisher works off its socket buffer, and the kernel receive timestamps
 * keep the cycle times right. */
#define DRAIN_NS 30000000000LL

typedef struct {
    pubsub_config config;
    UA_Server *server;
    UA_NodeId connection;
    int fd;
    bool kernel_timestamps;
    bool started;                 /* the first NetworkMessage of ours has arrived */
    int64_t start_ns, end_ns;     /* the measured phase, wall clock (set by that message) */
    bool in_phase;                /* of the message being processed */

    /* per DataSetWriter k */
    int64_t *last_receive_ns;     /* previous NetworkMessage of writer k in the phase, or 0 */
    int64_t *message_tick;        /* tick of the current message's fields, -1 before the first */
    float *values;                /* the targets' latest values (for Read) */

    bool have_sequence;
    uint16_t last_sequence;

    uint64_t messages, decode_failed, foreign, datagrams, bytes, max_datagram_bytes;
    uint64_t lost, duplicates, fields, checked, verification_failed, negative_delays;
    uint64_t delivered;           /* fields the SDK wrote for the current datagram */
    examples verification_examples, error_examples;
    histogram cycle, delay;
    timeline timeline;            /* from the first NetworkMessage of ours (SPEC §6, §8) */
} subscriber;

static subscriber sub;

static void check(UA_StatusCode rv, const char *what) {
    if(rv != UA_STATUSCODE_GOOD)
        fail("runtime", EXIT_RUNTIME, "%s failed: %s", what, UA_StatusCode_name(rv));
}

static int writer_of(uint32_t index) {
    return (int)(index / (uint32_t)sub.config.fields_per_message);
}

static int writer_field_count(int k) {
    int first, count;
    pubsub_writer_fields(&sub.config, k, &first, &count);
    return count;
}

/* --- target variables ------------------------------------------------------------------ */

static void verification_failure(const char *text) {
    sub.verification_failed++;
    examples_add(&sub.verification_examples, text);
}

static UA_StatusCode target_write(UA_Server *server, const UA_NodeId *session_id,
                                  void *session_context, const UA_NodeId *node_id,
                                  void *node_context, const UA_NumericRange *range,
                                  const UA_DataValue *value) {
    uint32_t index = (uint32_t)(uintptr_t)node_context - 1;
    sub.delivered++;
    bool is_float = value->hasValue &&
                    UA_Variant_hasScalarType(&value->value, &UA_TYPES[UA_TYPES_FLOAT]);
    if(is_float)
        sub.values[index] = *(const float *)value->value.data;
    if(!sub.in_phase)
        return UA_STATUSCODE_GOOD;
    sub.fields++;
    if(!sub.config.verify)
        return UA_STATUSCODE_GOOD;
    sub.checked++;
    node_class node = {NODE_SIGNAL, index};
    char name[32], reason[200];
    if(!verify_value(node, "", &value->value, reason, sizeof(reason))) {
        snprintf(name, sizeof(name), "Signal_%u", index);
        verify_value(node, name, &value->value, reason, sizeof(reason));
        verification_failure(reason);
        return UA_STATUSCODE_GOOD;
    }
    int k = writer_of(index);
    int64_t tick = (int64_t)value_tick(node, &value->value);
    if(sub.message_tick[k] < 0) {
        sub.message_tick[k] = tick;
    } else if(sub.message_tick[k] != tick) {
        snprintf(reason, sizeof(reason), "Signal_%u: tick %lld differs from tick %lld of the "
                 "same message", index, (long long)tick, (long long)sub.message_tick[k]);
        verification_failure(reason);
    }
    return UA_STATUSCODE_GOOD;
}

static UA_StatusCode target_read(UA_Server *server, const UA_NodeId *session_id,
                                 void *session_context, const UA_NodeId *node_id,
                                 void *node_context, UA_Boolean source_timestamp,
                                 const UA_NumericRange *range, UA_DataValue *value) {
    uint32_t index = (uint32_t)(uintptr_t)node_context - 1;
    UA_Variant_setScalarCopy(&value->value, &sub.values[index], &UA_TYPES[UA_TYPES_FLOAT]);
    value->hasValue = true;
    return UA_STATUSCODE_GOOD;
}

/* Signal_i of the publisher becomes ns=<urn:uabench:subscriber>;i=i+1 here. */
static UA_NodeId target_id(UA_UInt16 ns, int index) {
    return UA_NODEID_NUMERIC(ns, (UA_UInt32)index + 1);
}

static void add_targets(UA_UInt16 ns) {
    UA_ObjectAttributes folder = UA_ObjectAttributes_default;
    folder.displayName = UA_LOCALIZEDTEXT("", "Received");
    UA_NodeId parent = UA_NODEID_STRING(ns, "Received");
    check(UA_Server_addObjectNode(sub.server, parent, UA_NS0ID(OBJECTSFOLDER),
                                  UA_NS0ID(ORGANIZES), UA_QUALIFIEDNAME(ns, "Received"),
                                  UA_NS0ID(BASEOBJECTTYPE), folder, NULL, NULL),
          "adding the target folder");
    UA_CallbackValueSource source = {target_read, target_write};
    for(int i = 0; i < sub.config.signals; i++) {
        char name[32];
        snprintf(name, sizeof(name), "Signal_%d", i);
        UA_VariableAttributes attr = UA_VariableAttributes_default;
        attr.displayName = UA_LOCALIZEDTEXT("", name);
        attr.dataType = UA_TYPES[UA_TYPES_FLOAT].typeId;
        attr.valueRank = UA_VALUERANK_SCALAR;
        attr.accessLevel = attr.userAccessLevel =
            UA_ACCESSLEVELMASK_READ | UA_ACCESSLEVELMASK_WRITE;
        check(UA_Server_addCallbackValueSourceVariableNode(
                  sub.server, target_id(ns, i), parent, UA_NS0ID(HASCOMPONENT),
                  UA_QUALIFIEDNAME(ns, name), UA_NS0ID(BASEDATAVARIABLETYPE), attr, source,
                  (void *)(uintptr_t)(i + 1), NULL),
              "adding a target variable");
    }
}

/* --- ReaderGroup and DataSetReaders ------------------------------------------------------ */

static UA_StatusCode own_transport(UA_Server *server, const UA_NodeId component,
                                   void *context, UA_PubSubState *state,
                                   UA_PubSubState target) {
    /* No socket for the SDK to open: the connection is operational whenever enabled. */
    *state = (target == UA_PUBSUBSTATE_DISABLED || target == UA_PUBSUBSTATE_ERROR)
                 ? target : UA_PUBSUBSTATE_OPERATIONAL;
    return UA_STATUSCODE_GOOD;
}

static void add_reader(UA_NodeId group, UA_UInt16 ns, int k) {
    int first, count;
    pubsub_writer_fields(&sub.config, k, &first, &count);
    char name[48];
    snprintf(name, sizeof(name), "Reader %d", k);
    UA_DataSetReaderConfig reader;
    memset(&reader, 0, sizeof(reader));
    reader.name = UA_STRING(name);
    reader.enabled = false;
    reader.publisherId.idType = UA_PUBLISHERIDTYPE_UINT16;
    reader.publisherId.id.uint16 = (UA_UInt16)sub.config.publisher_id;
    reader.writerGroupId = (UA_UInt16)sub.config.writer_group_id;
    reader.dataSetWriterId = (UA_UInt16)(sub.config.dataset_writer_id + k);
    reader.dataSetFieldContentMask = UA_DATASETFIELDCONTENTMASK_NONE;
    UA_DataSetMetaDataType *meta = &reader.dataSetMetaData;
    meta->name = UA_STRING(name);
    meta->fieldsSize = (size_t)count;
    meta->fields = calloc((size_t)count, sizeof(UA_FieldMetaData));
    UA_FieldTargetDataType *targets = calloc((size_t)count, sizeof(UA_FieldTargetDataType));
    char (*names)[32] = calloc((size_t)count, 32);
    for(int j = 0; j < count; j++) {
        snprintf(names[j], 32, "Signal_%d", first + j);
        UA_FieldMetaData_init(&meta->fields[j]);
        meta->fields[j].name = UA_STRING(names[j]);
        meta->fields[j].dataType = UA_TYPES[UA_TYPES_FLOAT].typeId;
        meta->fields[j].builtInType = (UA_Byte)UA_TYPES[UA_TYPES_FLOAT].typeId.identifier.numeric;
        meta->fields[j].valueRank = UA_VALUERANK_SCALAR;
        UA_FieldTargetDataType_init(&targets[j]);
        targets[j].attributeId = UA_ATTRIBUTEID_VALUE;
        targets[j].targetNodeId = target_id(ns, first + j);
    }
    UA_NodeId id;
    check(UA_Server_addDataSetReader(sub.server, group, &reader, &id), "adding a DataSetReader");
    check(UA_Server_setDataSetReaderTargetVariables(sub.server, id, (size_t)count, targets),
          "setting the target variables");
    free(meta->fields);
    free(targets);
    free(names);
}

static void configure_pubsub(UA_UInt16 ns) {
    UA_NetworkAddressUrlDataType url;
    UA_PubSubConnectionConfig connection;
    pubsub_connection_config(&sub.config, &url, &connection);
    connection.customStateMachine = own_transport;
    check(UA_Server_addPubSubConnection(sub.server, &connection, &sub.connection),
          "adding the PubSubConnection");
    UA_ReaderGroupConfig group_config;
    memset(&group_config, 0, sizeof(group_config));
    group_config.name = UA_STRING("uabench");
    group_config.enabled = false; /* enabled after startup, with its readers */
    group_config.encodingMimeType = UA_PUBSUB_ENCODING_UADP;
    UA_NodeId group;
    check(UA_Server_addReaderGroup(sub.server, sub.connection, &group_config, &group),
          "adding the ReaderGroup");
    for(int k = 0; k < sub.config.writers; k++)
        add_reader(group, ns, k);
}

/* --- the socket ---------------------------------------------------------------------------- */

static int open_socket(void) {
    struct in_addr group, local;
    if(inet_pton(AF_INET, sub.config.host, &group) != 1)
        fail("config", EXIT_CONFIG, "config: key 'address' must hold an IPv4 address, got '%s'",
             sub.config.host);
    inet_pton(AF_INET, sub.config.interface, &local);
    bool multicast = IN_MULTICAST(ntohl(group.s_addr));

    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if(fd < 0)
        fail("runtime", EXIT_RUNTIME, "socket: %s", strerror(errno));
    int on = 1, off = 0, size = RECEIVE_BUFFER_BYTES;
    /* Several subscribers on one host share the group's port. */
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
    setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on));
    /* A big buffer: a burst of W NetworkMessages must not be dropped here. */
    if(setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) != 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
    sub.kernel_timestamps = setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) == 0;
    /* Binding the group address (not INADDR_ANY) receives only this group's datagrams. */
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(sub.config.port)};
    address.sin_addr = multicast ? group : local;
    if(bind(fd, (struct sockaddr *)&address, sizeof(address)) != 0)
        fail("runtime", EXIT_RUNTIME, "cannot bind %s:%d: %s", sub.config.host, sub.config.port,
             strerror(errno));
    if(multicast) {
        setsockopt(fd, IPPROTO_IP, IP_MULTICAST_ALL, &off, sizeof(off));
        struct ip_mreq request = {.imr_multiaddr = group, .imr_interface = local};
        if(setsockopt(fd, IPPROTO_IP, IP_ADD_MEMBERSHIP, &request, sizeof(request)) != 0)
            fail("runtime", EXIT_RUNTIME, "cannot join %s on interface %s: %s", sub.config.host,
                 sub.config.interface, strerror(errno));
    }
    return fd;
}

/* --- one datagram ----------------------------------------------------------------------------- */

/* The DataSetMessage header fields the measurement needs (Part 14, 7.2.4.5.4). */
typedef struct {
    bool has_timestamp;
    int64_t timestamp;  /* UA_DateTime */
} dsm_header;

static bool read_bytes(const UA_Byte **pos, const UA_Byte *end, void *out, size_t length) {
    if((size_t)(end - *pos) < length)
        return false;
    memcpy(out, *pos, length);  /* little endian on every platform this runs on */
    *pos += length;
    return true;
}

static bool parse_dsm_header(const UA_Byte *pos, const UA_Byte *end, dsm_header *header) {
    UA_Byte flags1 = 0, flags2 = 0;
    uint16_t u16;
    header->has_timestamp = false;
    if(!read_bytes(&pos, end, &flags1, 1))
        return false;
    if((flags1 & 0x80) && !read_bytes(&pos, end, &flags2, 1))
        return false;
    if((flags1 & 0x08) && !read_bytes(&pos, end, &u16, 2)) /* DataSetMessage SequenceNumber */
        return false;
    if(flags2 & 0x10) {
        header->has_timestamp = read_bytes(&pos, end, &header->timestamp, 8);
        return header->has_timestamp;
    }
    return true;
}

static void decode_failure(const char *text) {
    if(sub.in_phase) {
        sub.decode_failed++;
        examples_add(&sub.error_examples, text);
    }
}

/* The warm-up starts with the first NetworkMessage of ours, so a publisher that is still
 * building its DataSet (or a subscriber started first) shortens no measured phase. */
static void start_phase(int64_t at_ns) {
    sub.started = true;
    sub.start_ns = at_ns + (int64_t)(sub.config.warmup_s * 1e9);
    sub.end_ns = sub.start_ns + (int64_t)(sub.config.duration_s * 1e9);
    timeline_begin(&sub.timeline, at_ns, sub.end_ns - at_ns, 0);
}

static bool ours(const UA_NetworkMessage *nm) {
    if(nm->publisherIdEnabled && (nm->publisherId.idType != UA_PUBLISHERIDTYPE_UINT16 ||
                                  nm->publisherId.id.uint16 != sub.config.publisher_id))
        return false;
    if(nm->groupHeaderEnabled && nm->groupHeader.writerGroupIdEnabled &&
       nm->groupHeader.writerGroupId != sub.config.writer_group_id)
        return false;
    for(size_t i = 0; i < nm->messageCount; i++) {
        int k = (int)nm->dataSetWriterIds[i] - sub.config.dataset_writer_id;
        if(k >= 0 && k < sub.config.writers)
            return true;
    }
    return false;
}

static void count_sequence(const UA_NetworkMessage *nm) {
    if(!nm->groupHeaderEnabled || !nm->groupHeader.sequenceNumberEnabled)
        return;
    uint16_t sequence = nm->groupHeader.sequenceNumber;
    if(sub.have_sequence && sub.in_phase) {
        uint16_t step = (uint16_t)(sequence - sub.last_sequence);
        if(step == 0 || step >= 0x8000)
            sub.duplicates++;
        else
            sub.lost += step - 1u;
    }
    if(!sub.have_sequence || (uint16_t)(sequence - sub.last_sequence) < 0x8000) {
        sub.last_sequence = sequence;
        sub.have_sequence = true;
    }
}

/* Cycle time and delay of each DataSetMessage of ours in the NetworkMessage; the expected
 * number of fields the SDK should deliver for it. */
static int64_t measure(const UA_ByteString *packet, const UA_NetworkMessage *nm,
                       size_t payload_offset, int64_t received_ns) {
    const UA_Byte *pos = packet->data + payload_offset, *end = packet->data + packet->length;
    uint16_t sizes[UA_NETWORKMESSAGE_MAXMESSAGECOUNT];
    size_t count = nm->messageCount;
    if(count > 1) {
        for(size_t i = 0; i < count; i++)
            if(!read_bytes(&pos, end, &sizes[i], 2))
                return -1;
    } else {
        sizes[0] = (uint16_t)(end - pos > 65535 ? 65535 : end - pos);
    }
    int64_t expected = 0;
    for(size_t i = 0; i < count; i++) {
        const UA_Byte *dsm = pos;
        if(count > 1)
            pos += sizes[i];
        int k = (int)nm->dataSetWriterIds[i] - sub.config.dataset_writer_id;
        if(k < 0 || k >= sub.config.writers)
            continue;
        expected += writer_field_count(k);
        sub.message_tick[k] = -1;
        dsm_header header;
        if(!parse_dsm_header(dsm, end, &header))
            return -1;
        if(!sub.in_phase)
            continue;
        if(header.has_timestamp) {
            int64_t published_ns = (header.timestamp - UA_DATETIME_UNIX_EPOCH) * 100;
            int64_t delay = received_ns - published_ns;
            if(delay < 1) {
                sub.negative_delays++;
                delay = 1;
            }
            histogram_record(&sub.delay, delay);
        }
        if(sub.last_receive_ns[k])
            histogram_record(&sub.cycle, received_ns - sub.last_receive_ns[k]);
        sub.last_receive_ns[k] = received_ns;
    }
    return expected;
}

static void handle(UA_ByteString packet, int64_t received_ns) {
    sub.in_phase = received_ns >= sub.start_ns && received_ns < sub.end_ns;
    if(sub.in_phase) {
        sub.datagrams++;
        sub.bytes += packet.length;
        if(packet.length > sub.max_datagram_bytes)
            sub.max_datagram_bytes = packet.length;
    }
    UA_NetworkMessage nm;
    size_t payload_offset = 0;
    if(UA_NetworkMessage_decodeBinaryHeaders(&packet, &nm, NULL, NULL, &payload_offset) !=
       UA_STATUSCODE_GOOD) {
        if(sub.in_phase)
            sub.messages++;
        decode_failure("a datagram whose UADP NetworkMessage headers do not decode");
        return;
    }
    if(!ours(&nm)) {
        if(sub.in_phase)
            sub.foreign++;
        UA_NetworkMessage_clear(&nm);
        return;
    }
    if(!sub.started)
        start_phase(received_ns);
    if(sub.in_phase)
        sub.messages++;
    count_sequence(&nm);
    int64_t expected = measure(&packet, &nm, payload_offset, received_ns);
    UA_NetworkMessage_clear(&nm);
    if(expected < 0) {
        decode_failure("a DataSetMessage header that does not decode");
        return;
    }
    /* A warm-up datagram that is already an interval old is only counted: a slow subscriber
     * must not carry a warm-up backlog into the measured phase. */
    if(received_ns < sub.start_ns &&
       wall_ns() - received_ns > (int64_t)(sub.config.publishing_interval_ms * 1e6))
        return;
    sub.delivered = 0;
    UA_Server_processPubSubConnectionReceive(sub.server, sub.connection, packet);
    if((int64_t)sub.delivered == expected) {
        /* A skipped warm-up backlog (above) did not complete: not in the timeline. */
        timeline_completed(&sub.timeline, received_ns, (uint64_t)expected);
    } else {
        char text[160];
        snprintf(text, sizeof(text), "the DataSetReaders delivered %llu of the %lld fields of a "
                 "NetworkMessage", (unsigned long long)sub.delivered, (long long)expected);
        decode_failure(text);
    }
}

/* Reads what is queued, until the queue is empty or a datagram arrived after the phase
 * (a subscriber that falls behind still stops: its backlog is what it did not receive). */
static void receive_all(UA_Byte *buffer) {
    while(!pubsub_stop_requested) {
        struct iovec vector = {buffer, DATAGRAM_CAPACITY};
        char control[CMSG_SPACE(sizeof(struct timespec))];
        struct msghdr message = {.msg_iov = &vector, .msg_iovlen = 1,
                                 .msg_control = control, .msg_controllen = sizeof(control)};
        ssize_t length = recvmsg(sub.fd, &message, MSG_DONTWAIT);
        if(length < 0) {
            if(errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
                examples_add(&sub.error_examples, strerror(errno));
            return;
        }
        int64_t received_ns = 0;
        for(struct cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c)) {
            if(c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
                struct timespec ts;
                memcpy(&ts, CMSG_DATA(c), sizeof(ts));
                received_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
            }
        }
        if(!received_ns) {
            sub.kernel_timestamps = false;
            received_ns = wall_ns();
        }
        handle((UA_ByteString){(size_t)length, buffer}, received_ns);
        if(sub.started && (received_ns >= sub.end_ns || wall_ns() >= sub.end_ns + DRAIN_NS))
            return;
    }
}

/* --- the result ------------------------------------------------------------------------------ */

static void examples_json(FILE *out, const examples *list) {
    fputc('[', out);
    for(int i = 0; i < list->count; i++) {
        if(i)
            fputc(',', out);
        json_write_string(out, list->items[i]);
    }
    fputc(']', out);
}

static void emit_result(void) {
    char *line = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&line, &length);
    double seconds = (double)(sub.end_ns - sub.start_ns) / 1e9;
    if(seconds <= 0)
        seconds = 1e-9;
    uint64_t succeeded = sub.messages - sub.decode_failed;
    fprintf(out, "{\"event\":\"result\",\"sdk\":\"%s\",\"version\":\"%s\",\"role\":\"subscriber\","
                 "\"workload\":\"pubsub\",\"config\":", SDK_ID, sdk_version());
    pubsub_config_json(out, &sub.config, true);
    fprintf(out, ",\"start_ns\":%lld,\"end_ns\":%lld,\"operations\":{\"attempted\":%llu,"
                 "\"succeeded\":%llu,\"failed\":%llu},\"values\":%llu,\"verification\":{"
                 "\"checked\":%llu,\"failed\":%llu,\"examples\":",
            (long long)sub.start_ns, (long long)sub.end_ns, (unsigned long long)sub.messages,
            (unsigned long long)succeeded, (unsigned long long)sub.decode_failed,
            (unsigned long long)sub.fields, (unsigned long long)sub.checked,
            (unsigned long long)sub.verification_failed);
    examples_json(out, &sub.verification_examples);
    fputs("},\"errors\":{\"examples\":", out);
    examples_json(out, &sub.error_examples);
    fputs("},\"throughput\":{\"ops_per_s\":", out);
    json_number(out, (double)succeeded / seconds);
    fputs(",\"values_per_s\":", out);
    json_number(out, (double)sub.fields / seconds);
    fprintf(out, "},\"latency_ns\":[],\"pubsub\":{\"messages\":%llu,\"datagrams\":%llu,"
                 "\"bytes\":%llu,\"max_datagram_bytes\":%llu,\"writers\":%d,\"lost\":%llu,"
                 "\"duplicates\":%llu,\"decode_failed\":%llu,\"foreign\":%llu,"
                 "\"negative_delays\":%llu,\"timestamps\":\"%s\"},\"cycle_time_ns\":",
            (unsigned long long)sub.messages, (unsigned long long)sub.datagrams,
            (unsigned long long)sub.bytes, (unsigned long long)sub.max_datagram_bytes,
            sub.config.writers, (unsigned long long)sub.lost,
            (unsigned long long)sub.duplicates, (unsigned long long)sub.decode_failed,
            (unsigned long long)sub.foreign, (unsigned long long)sub.negative_delays,
            sub.kernel_timestamps ? "kernel" : "application");
    histogram_json(out, &sub.cycle);
    fputs(",\"delay_ns\":", out);
    histogram_json(out, &sub.delay);
    fputc(',', out);
    timeline_json(out, &sub.timeline, sub.end_ns);
    fputc('}', out);
    fclose(out);
    emit_line(line, length);
    free(line);
}

int subscriber_main(const char *config_path) {
    pubsub_config_load(config_path, &sub.config, true);
    timeline_init(&sub.timeline, sub.config.timeline_ms);
    sub.last_receive_ns = calloc((size_t)sub.config.writers, sizeof(int64_t));
    sub.message_tick = calloc((size_t)sub.config.writers, sizeof(int64_t));
    sub.values = calloc((size_t)sub.config.signals, sizeof(float));
    sub.fd = open_socket();

    sub.server = pubsub_server_new();
    UA_UInt16 ns = UA_Server_addNamespace(sub.server, "urn:uabench:subscriber");
    add_targets(ns);
    configure_pubsub(ns);
    pubsub_handle_signals();
    check(UA_Server_run_startup(sub.server), "starting the server");
    check(UA_Server_enableAllPubSubComponents(sub.server), "enabling PubSub");

    UA_Byte *buffer = malloc(DATAGRAM_CAPACITY);
    int64_t now = wall_ns(), give_up = now + FIRST_MESSAGE_TIMEOUT_NS;
    while(!pubsub_stop_requested && (now = wall_ns()) < (sub.started ? sub.end_ns : give_up)) {
        int64_t left_ms = ((sub.started ? sub.end_ns : give_up) - now) / 1000000 + 1;
        struct pollfd poll_fd = {sub.fd, POLLIN, 0};
        if(poll(&poll_fd, 1, (int)(left_ms < 50 ? left_ms : 50)) > 0)
            receive_all(buffer);
        UA_Server_run_iterate(sub.server, false);
    }
    if(!sub.started) /* nothing arrived: an empty phase, and a result that says so */
        start_phase(now - (int64_t)((sub.config.warmup_s + sub.config.duration_s) * 1e9));
    receive_all(buffer); /* what the kernel received before the end, still queued */
    if(pubsub_stop_requested && now < sub.end_ns)
        sub.end_ns = now > sub.start_ns ? now : sub.start_ns;

    emit_result();
    close(sub.fd);
    UA_Server_run_shutdown(sub.server);
    UA_Server_delete(sub.server);
    free(buffer);
    return 0;
}

#endif /* UA_OPEN62541_VER_MINOR < 5 */
