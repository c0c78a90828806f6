/* The `subscribe` workload of SPEC §3/§6: every subscription of every session monitors
 * every node; notifications are measured by their receive time. */
#ifndef UABENCH_SUBSCRIBE_H
#define UABENCH_SUBSCRIBE_H

#include "config.h"
#include "histogram.h"
#include "recorder.h"
#include "session.h"

typedef struct {
    uint64_t notifications;
    uint64_t updates_min, updates_max;  /* per subscription */
    uint64_t tick_gaps;
    uint64_t duplicates;  /* updates with the same tick as the item's last one */
    histogram cycle_time;
    histogram delay;
} subscription_stats;

void subscribe_run(const client_config *config, session_set *sessions, recorder *rec,
                   subscription_stats *stats);

/* The result record's "subscription", "cycle_time_ns" and "delay_ns" fields (no braces). */
void subscription_stats_json(FILE *out, const subscription_stats *stats, const recorder *rec);

#endif
