/* The `subscribe` workload of SPEC §3/§6: every subscription of every session monitors
 * every node; notifications are measured by their receive time. */
#ifndef UABENCH_SUBSCRIBE_H
#define UABENCH_SUBSCRIBE_H

#include "config.h"
#include "histogram.h"
#include "recorder.h"
#include "session.h"

#include <open62541/types.h>

typedef struct {
    uint64_t notifications;
    uint64_t updates_min, updates_max;  /* per subscription */
    uint64_t tick_gaps;
    uint64_t duplicates;  /* updates with the same tick as the item's last one */
    histogram cycle_time;
    histogram delay;
} subscription_stats;

/* SPEC §3 subscribe: the lifetime count to ask for, so that a lifetime (count × interval) is
 * at least the session timeout asked for (capped at 600 s) and three keep-alive intervals: a
 * connection lost for less than that finds its subscription still on the server (the
 * default 10000 is 10 s at 1 ms). Capped at the UInt32 maximum. */
UA_UInt32 lifetime_count(UA_UInt32 keep_alive, UA_UInt32 session_timeout_ms, double interval_ms);

void subscribe_run(const client_config *config, session_set *sessions, recorder *rec,
                   subscription_stats *stats);

/* The result record's "subscription", "cycle_time_ns" and "delay_ns" fields (no braces). */
void subscription_stats_json(FILE *out, const subscription_stats *stats, const recorder *rec);

#endif
