/* Counts one client run for the result record of SPEC §6. */
#ifndef UABENCH_RECORDER_H
#define UABENCH_RECORDER_H

#include "connection.h"
#include "histogram.h"

#include <stdint.h>
#include <stdio.h>

#define MAX_EXAMPLES 5

typedef struct {
    char *items[MAX_EXAMPLES];
    int count;
} examples;

/* The result record's timeline (SPEC §6): successful completions and their values per
 * window from the start of the workload (warm-up included) to the end of the measured
 * phase. The arrays are allocated once at timeline_begin; counting is an index and two
 * increments, so the completion path stays as cheap as it was. */
typedef struct {
    int window_ms;
    int64_t window_ns;
    int64_t start;        /* the adapter's clock (the one completions are timed on) */
    int64_t wall_offset;  /* start + wall_offset: the record's clock */
    int begun;
    size_t windows;
    uint64_t *ops, *values;
} timeline;

void timeline_init(timeline *t, int window_ms);
/* The workload starts at `start` and runs `span_ns` (warm-up + measured phase). */
void timeline_begin(timeline *t, int64_t start, int64_t span_ns, int64_t wall_offset);

/* One operation completed successfully at `at` (the clock of timeline_begin). */
static inline void timeline_completed(timeline *t, int64_t at, uint64_t values) {
    if(at < t->start)
        return;
    uint64_t k = (uint64_t)(at - t->start) / (uint64_t)t->window_ns;
    if(k < t->windows) {
        t->ops[k]++;
        t->values[k] += values;
    }
}

/* Writes "timeline":{...} with its windows cut or padded to end at the record's end_ns. */
void timeline_json(FILE *out, const timeline *t, int64_t end_ns);

/* SPEC §6 latencies (record_latencies): every measured request the latency histogram
 * counts, its send instant and latency, in completion order. The two arrays grow by
 * doubling up to LATENCIES_MAX entries, so appending is a store and an increment (and now
 * and then a realloc); requests beyond the limit are only counted. */
#define LATENCIES_MAX 1000000

typedef struct {
    int enabled;
    int64_t start;        /* timeline start (the adapter's clock): send instants count from it */
    int64_t *send_ns, *latency_ns;
    size_t count, capacity;
    uint64_t truncated;
} latency_series;

typedef struct {
    uint64_t attempted, succeeded, failed, values;
    uint64_t checked, verification_failed;
    uint64_t ticks_advanced;  /* SPEC §6: read with verify sets it, every other workload 0 */
    uint64_t read_back;       /* SPEC §3 W1: values read back under load (in `checked` too) */
    examples verification_examples, error_examples;
    histogram latency;
    histogram send_lag;       /* SPEC §6: open loop, actual − scheduled send of each measured request */
    histogram session_setup;  /* SPEC §6: one entry per session */
    int64_t start_ns, end_ns;  /* wall clock of the measured phase */
    timeline timeline;
    latency_series latencies;
    connection_log connection; /* SPEC §6: every client's, whatever the workload */
} recorder;

/* Keeps at most MAX_EXAMPLES distinct strings. */
void examples_add(examples *list, const char *text);

/* Lists every later recorded latency (SPEC §6 latencies), send instants counted from
 * `start` (the clock of timeline_begin, the timeline's start). */
void recorder_list_latencies(recorder *r, int64_t start);

/* One measured request completed (or failed), sent at `sent_at` (the adapter's clock; open
 * loop: its scheduled instant) with `latency_ns` from then. */
void recorder_operation(recorder *r, int64_t sent_at, int64_t latency_ns, int ok,
                        uint64_t values, const char *error);
/* One data-change notification of the subscribe workload (no latency): a good one
 * succeeded with one value, a Bad one (or a refused monitored item) failed. */
void recorder_notification(recorder *r, int ok, const char *error);
/* Open loop: a measured request was handed to the SDK `lag_ns` after its scheduled time. */
void recorder_sent(recorder *r, int64_t lag_ns);
void recorder_session_ready(recorder *r, int64_t setup_ns);
void recorder_verification(recorder *r, const char *failure); /* NULL = passed */
/* One value read back under load (SPEC §3 W1): a checked value counted in read_back. */
void recorder_read_back(recorder *r, const char *failure);

/* Writes the record's fields from "start_ns" through "timeline" (with "connection") and,
 * if listed, "latencies" (no braces). */
void recorder_json(FILE *out, const recorder *r);

#endif
