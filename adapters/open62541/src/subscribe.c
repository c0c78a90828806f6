#include "subscribe.h"

#include "clock.h"
#include "json_out.h"
#include "model.h"
#include "tick_check.h"
#include "verify.h"

#include <math.h>
#include <open62541/client_subscriptions.h>
#include <stdlib.h>
#include <string.h>

/* Monitored-item creation stays well below any server's per-call limit. */
#define CHUNK 1000

typedef struct {
    uint64_t updates;  /* measured notifications */
} subscription;

/* What one monitored item saw last; warm-up updates count as predecessors, so the first
 * measured update already has a cycle time. */
typedef struct {
    const char *name;
    node_class node;
    subscription *owner;
    int64_t last_received;  /* mono ns, 0 = none yet */
    int has_tick;
    uint32_t last_tick;
} item;

static struct {
    const client_config *config;
    recorder *rec;
    subscription_stats *stats;
    int64_t measure_start, measure_end;
    int finished;
} sub_run;

static int carries_tick(node_class node) {
    return node.kind == NODE_SIGNAL || node.kind == NODE_TICK;
}

static void on_data_change(UA_Client *client, UA_UInt32 sub_id, void *sub_context,
                           UA_UInt32 mon_id, void *mon_context, UA_DataValue *value) {
    (void)sub_id;
    (void)sub_context;
    (void)mon_id;
    if(sub_run.finished)
        return;
    int64_t received = mono_ns();
    item *it = mon_context;
    int good = !value->hasStatus || value->status == UA_STATUSCODE_GOOD;
    char reason[160];
    int valid = good && verify_value(it->node, it->name, &value->value, reason, sizeof(reason));
    int has_tick = valid && carries_tick(it->node);
    if(good) {
        timeline_completed(&sub_run.rec->timeline, received, 1);
        /* After a loss only the subscription inactivity callback saw (session.c), the same
         * subscription delivering again is the restoration. */
        session_watch *watch = UA_Client_getContext(client);
        if(connection_is_down(watch->connection, watch->index))
            connection_mark_restored(watch->connection, watch->index, wall_ns(),
                                     SUBSCRIPTIONS_TRANSFERRED);
    }
    uint32_t tick = has_tick ? value_tick(it->node, &value->value) : 0;

    if(received >= sub_run.measure_start && received < sub_run.measure_end) {
        subscription_stats *stats = sub_run.stats;
        stats->notifications++;
        it->owner->updates++;
        if(it->last_received)
            histogram_record(&stats->cycle_time, received - it->last_received);
        if(value->hasSourceTimestamp) {
            int64_t source_ns = (value->sourceTimestamp - UA_DATETIME_UNIX_EPOCH) * 100;
            int64_t delay = wall_ns() - source_ns;
            histogram_record(&stats->delay, delay < 1 ? 1 : delay);
        }
        if(has_tick && it->has_tick)
            tick_step(it->last_tick, tick, &stats->tick_gaps, &stats->duplicates);
        /* SPEC §3: each notification is an operation; one with a Bad status failed
         * (and is not a verification failure). */
        if(!good) {
            snprintf(reason, sizeof(reason), "%s: %s", it->name,
                     UA_StatusCode_name(value->status));
            recorder_notification(sub_run.rec, 0, reason);
        } else {
            recorder_notification(sub_run.rec, 1, NULL);
            if(sub_run.config->verify)
                recorder_verification(sub_run.rec, valid ? NULL : reason);
        }
    }
    it->last_received = received;
    if(has_tick) {
        it->has_tick = 1;
        it->last_tick = tick;
    }
}

static void fail_items(const char *why, UA_StatusCode status, recorder *rec, size_t count) {
    char text[200];
    snprintf(text, sizeof(text), "%s: %s", why, UA_StatusCode_name(status));
    for(size_t i = 0; i < count; i++)
        recorder_notification(rec, 0, text); /* a refused monitored item: failed */
}

static void monitor_chunk(UA_Client *client, UA_UInt32 sub_id, UA_UInt16 ns, item *items,
                          size_t count, recorder *rec) {
    const client_config *c = sub_run.config;
    UA_MonitoredItemCreateRequest *requests = calloc(count, sizeof(*requests));
    void **contexts = calloc(count, sizeof(void *));
    UA_Client_DataChangeNotificationCallback *callbacks = calloc(count, sizeof(*callbacks));
    for(size_t i = 0; i < count; i++) {
        requests[i] = UA_MonitoredItemCreateRequest_default(
            UA_NODEID_STRING(ns, (char *)items[i].name));
        requests[i].requestedParameters.samplingInterval = c->sampling_interval_ms;
        requests[i].requestedParameters.queueSize = (UA_UInt32)c->queue_size;
        requests[i].requestedParameters.discardOldest = true;
        contexts[i] = &items[i];
        callbacks[i] = on_data_change;
    }
    UA_CreateMonitoredItemsRequest request;
    UA_CreateMonitoredItemsRequest_init(&request);
    request.subscriptionId = sub_id;
    request.timestampsToReturn = UA_TIMESTAMPSTORETURN_BOTH;
    request.itemsToCreate = requests;
    request.itemsToCreateSize = count;
    UA_CreateMonitoredItemsResponse response =
        UA_Client_MonitoredItems_createDataChanges(client, request, contexts, callbacks, NULL);
    if(response.responseHeader.serviceResult != UA_STATUSCODE_GOOD)
        fail_items("CreateMonitoredItems", response.responseHeader.serviceResult, rec, count);
    for(size_t i = 0; i < response.resultsSize; i++)
        if(response.results[i].statusCode != UA_STATUSCODE_GOOD)
            fail_items(items[i].name, response.results[i].statusCode, rec, 1);
    UA_CreateMonitoredItemsResponse_clear(&response);
    free(requests);
    free(contexts);
    free(callbacks);
}

/* The SDK removed a subscription of the session: at its close, or when it cleaned up a
 * Session the server no longer knows (after a reconnection, session.c). */
static void on_subscription_deleted(UA_Client *client, UA_UInt32 sub_id, void *sub_context) {
    (void)sub_id;
    (void)sub_context;
    session_watch *watch = UA_Client_getContext(client);
    watch->subscriptions--;
}

UA_UInt32 lifetime_count(UA_UInt32 keep_alive, UA_UInt32 session_timeout_ms, double interval_ms) {
    double timeout_ms = session_timeout_ms < 600000 ? session_timeout_ms : 600000;
    double count = ceil(timeout_ms / interval_ms);
    if(count < 3.0 * keep_alive)
        count = 3.0 * keep_alive;
    return count >= UA_UINT32_MAX ? UA_UINT32_MAX : (UA_UInt32)count;
}

static void create_subscription(UA_Client *client, UA_UInt16 ns, subscription *sub,
                                recorder *rec) {
    const client_config *c = sub_run.config;
    UA_CreateSubscriptionRequest request = UA_CreateSubscriptionRequest_default();
    request.requestedPublishingInterval = c->publishing_interval_ms;
    /* The session timeout the client asked for: the SDK default (20 min), not set here. */
    request.requestedLifetimeCount =
        lifetime_count(request.requestedMaxKeepAliveCount,
                       UA_Client_getConfig(client)->requestedSessionTimeout,
                       c->publishing_interval_ms);
    UA_CreateSubscriptionResponse response =
        UA_Client_Subscriptions_create(client, request, sub, NULL, on_subscription_deleted);
    if(response.responseHeader.serviceResult != UA_STATUSCODE_GOOD) {
        fail_items("CreateSubscription", response.responseHeader.serviceResult, rec,
                   c->nodes_count);
        return;
    }
    ((session_watch *)UA_Client_getContext(client))->subscriptions++;
    item *items = calloc(c->nodes_count, sizeof(item));
    for(size_t i = 0; i < c->nodes_count; i++) {
        items[i].name = c->nodes[i];
        items[i].node = model_classify(c->nodes[i]);
        items[i].owner = sub;
    }
    for(size_t from = 0; from < c->nodes_count; from += CHUNK)
        monitor_chunk(client, response.subscriptionId, ns, items + from,
                      c->nodes_count - from < CHUNK ? c->nodes_count - from : CHUNK, rec);
}

void subscribe_run(const client_config *config, session_set *set, recorder *rec,
                   subscription_stats *stats) {
    memset(&sub_run, 0, sizeof(sub_run));
    sub_run.config = config;
    sub_run.rec = rec;
    sub_run.stats = stats;
    sub_run.measure_start = sub_run.measure_end = INT64_MAX; /* nothing measured yet */

    size_t count = (size_t)config->sessions * (size_t)config->subscriptions;
    subscription *subs = calloc(count, sizeof(subscription));
    for(int s = 0; s < set->count; s++)
        for(int i = 0; i < config->subscriptions; i++)
            create_subscription(set->clients[s], set->namespace_index[s],
                                &subs[(size_t)s * (size_t)config->subscriptions + (size_t)i],
                                rec);

    int64_t mono0 = mono_ns(), wall0 = wall_ns();
    sub_run.measure_start = mono0 + (int64_t)(config->warmup_s * 1e9);
    sub_run.measure_end = sub_run.measure_start + (int64_t)(config->duration_s * 1e9);
    rec->start_ns = wall0 + (sub_run.measure_start - mono0);
    rec->end_ns = wall0 + (sub_run.measure_end - mono0);
    timeline_begin(&rec->timeline, mono0, sub_run.measure_end - mono0, wall0 - mono0);

    UA_EventLoop *loop = set->loop;
    for(int64_t now = mono_ns(); now < sub_run.measure_end; now = mono_ns()) {
        int64_t ms = (sub_run.measure_end - now) / 1000000;
        loop->run(loop, ms > 100 ? 100 : (UA_UInt32)ms);
    }
    sub_run.finished = 1;

    stats->updates_min = count ? UINT64_MAX : 0;
    for(size_t i = 0; i < count; i++) {
        if(subs[i].updates < stats->updates_min)
            stats->updates_min = subs[i].updates;
        if(subs[i].updates > stats->updates_max)
            stats->updates_max = subs[i].updates;
    }
}

void subscription_stats_json(FILE *out, const subscription_stats *stats, const recorder *rec) {
    double seconds = (double)(rec->end_ns - rec->start_ns) / 1e9;
    if(seconds < 1e-9)
        seconds = 1e-9;
    fprintf(out, "\"subscription\":{\"notifications\":%llu,\"values_per_s\":",
            (unsigned long long)stats->notifications);
    json_number(out, (double)stats->notifications / seconds);
    fprintf(out, ",\"updates_per_subscription\":{\"min\":%llu,\"max\":%llu},\"tick_gaps\":%llu,"
                 "\"duplicates\":%llu},\"cycle_time_ns\":",
            (unsigned long long)stats->updates_min, (unsigned long long)stats->updates_max,
            (unsigned long long)stats->tick_gaps, (unsigned long long)stats->duplicates);
    histogram_json(out, &stats->cycle_time);
    fputs(",\"delay_ns\":", out);
    histogram_json(out, &stats->delay);
}
