#include "recorder.h"

#include "json_out.h"

#include <stdlib.h>
#include <string.h>

void examples_add(examples *list, const char *text) {
    if(list->count >= MAX_EXAMPLES)
        return;
    for(int i = 0; i < list->count; i++)
        if(strcmp(list->items[i], text) == 0)
            return;
    list->items[list->count++] = strdup(text);
}

void timeline_init(timeline *t, int window_ms) {
    memset(t, 0, sizeof(*t));
    t->window_ms = window_ms;
    t->window_ns = (int64_t)window_ms * 1000000;
}

void timeline_begin(timeline *t, int64_t start, int64_t span_ns, int64_t wall_offset) {
    t->start = start;
    t->wall_offset = wall_offset;
    t->begun = 1;
    t->windows = span_ns > 0 ? (size_t)((span_ns + t->window_ns - 1) / t->window_ns) : 0;
    free(t->ops);
    free(t->values);
    t->ops = calloc(t->windows ? t->windows : 1, sizeof(uint64_t));
    t->values = calloc(t->windows ? t->windows : 1, sizeof(uint64_t));
}

static void counts_json(FILE *out, const uint64_t *counts, size_t have, size_t windows) {
    fputc('[', out);
    for(size_t k = 0; k < windows; k++)
        fprintf(out, k ? ",%llu" : "%llu", (unsigned long long)(k < have ? counts[k] : 0));
    fputc(']', out);
}

void timeline_json(FILE *out, const timeline *t, int64_t end_ns) {
    /* A timeline never begun starts at end_ns, empty. */
    int64_t start_ns = t->begun ? t->start + t->wall_offset : end_ns;
    int64_t span = end_ns - start_ns;
    size_t windows = span > 0 ? (size_t)((span + t->window_ns - 1) / t->window_ns) : 0;
    fprintf(out, "\"timeline\":{\"window_ms\":%d,\"start_ns\":%lld,\"ops\":", t->window_ms,
            (long long)start_ns);
    counts_json(out, t->ops, t->windows, windows);
    fputs(",\"values\":", out);
    counts_json(out, t->values, t->windows, windows);
    fputc('}', out);
}

void recorder_list_latencies(recorder *r, int64_t start) {
    r->latencies.enabled = 1;
    r->latencies.start = start;
}

/* Doubles the series' arrays, from 4096 entries up to LATENCIES_MAX. */
static void latencies_grow(latency_series *l) {
    size_t capacity = l->capacity ? l->capacity * 2 : 4096;
    if(capacity > LATENCIES_MAX)
        capacity = LATENCIES_MAX;
    l->send_ns = realloc(l->send_ns, capacity * sizeof(int64_t));
    l->latency_ns = realloc(l->latency_ns, capacity * sizeof(int64_t));
    if(!l->send_ns || !l->latency_ns)
        fail("runtime", EXIT_RUNTIME, "out of memory listing %zu latencies", capacity);
    l->capacity = capacity;
}

static void latencies_append(latency_series *l, int64_t sent_at, int64_t latency_ns) {
    if(l->count == LATENCIES_MAX) {
        l->truncated++;
        return;
    }
    if(l->count == l->capacity)
        latencies_grow(l);
    int64_t since_start = sent_at - l->start;
    l->send_ns[l->count] = since_start > 0 ? since_start : 0;
    l->latency_ns[l->count++] = latency_ns;
}

void recorder_operation(recorder *r, int64_t sent_at, int64_t latency_ns, int ok,
                        uint64_t values, const char *error) {
    r->attempted++;
    if(ok) {
        r->succeeded++;
        r->values += values;
        /* SPEC §5: a latency of 0 is recorded as 1; the series lists the same value. */
        if(latency_ns < 1)
            latency_ns = 1;
        histogram_record(&r->latency, latency_ns);
        if(r->latencies.enabled)
            latencies_append(&r->latencies, sent_at, latency_ns);
    } else {
        r->failed++;
        if(error)
            examples_add(&r->error_examples, error);
    }
}

void recorder_notification(recorder *r, int ok, const char *error) {
    r->attempted++;
    if(ok) {
        r->succeeded++;
        r->values++;
    } else {
        r->failed++;
        if(error)
            examples_add(&r->error_examples, error);
    }
}

void recorder_sent(recorder *r, int64_t lag_ns) {
    histogram_record(&r->send_lag, lag_ns);
}

void recorder_session_ready(recorder *r, int64_t setup_ns) {
    histogram_record(&r->session_setup, setup_ns);
}

void recorder_verification(recorder *r, const char *failure) {
    r->checked++;
    if(failure) {
        r->verification_failed++;
        examples_add(&r->verification_examples, failure);
    }
}

void recorder_read_back(recorder *r, const char *failure) {
    r->read_back++;
    recorder_verification(r, failure);
}

static void examples_json(FILE *out, const examples *list) {
    fputc('[', out);
    for(int i = 0; i < list->count; i++) {
        if(i)
            fputc(',', out);
        json_write_string(out, list->items[i]);
    }
    fputc(']', out);
}

static void series_json(FILE *out, const int64_t *values, size_t count) {
    fputc('[', out);
    for(size_t i = 0; i < count; i++)
        fprintf(out, i ? ",%lld" : "%lld", (long long)values[i]);
    fputc(']', out);
}

static void latencies_json(FILE *out, const latency_series *l) {
    fputs(",\"latencies\":{\"send_ns\":", out);
    series_json(out, l->send_ns, l->count);
    fputs(",\"latency_ns\":", out);
    series_json(out, l->latency_ns, l->count);
    fprintf(out, ",\"truncated\":%llu}", (unsigned long long)l->truncated);
}

void recorder_json(FILE *out, const recorder *r) {
    double seconds = (double)(r->end_ns - r->start_ns) / 1e9;
    if(seconds < 1e-9)
        seconds = 1e-9;
    fprintf(out,
            "\"start_ns\":%lld,\"end_ns\":%lld,"
            "\"operations\":{\"attempted\":%llu,\"succeeded\":%llu,\"failed\":%llu},"
            "\"values\":%llu,\"verification\":{\"checked\":%llu,\"failed\":%llu,\"examples\":",
            (long long)r->start_ns, (long long)r->end_ns, (unsigned long long)r->attempted,
            (unsigned long long)r->succeeded, (unsigned long long)r->failed,
            (unsigned long long)r->values, (unsigned long long)r->checked,
            (unsigned long long)r->verification_failed);
    examples_json(out, &r->verification_examples);
    fprintf(out, ",\"read_back\":%llu,\"ticks_advanced\":%llu",
            (unsigned long long)r->read_back, (unsigned long long)r->ticks_advanced);
    fputs("},\"errors\":{\"examples\":", out);
    examples_json(out, &r->error_examples);
    fputs("},\"throughput\":{\"ops_per_s\":", out);
    json_number(out, (double)r->succeeded / seconds);
    fputs(",\"values_per_s\":", out);
    json_number(out, (double)r->values / seconds);
    fputs("},\"latency_ns\":", out);
    histogram_json(out, &r->latency);
    fputs(",\"send_lag_ns\":", out);
    histogram_json(out, &r->send_lag);
    fputs(",\"session_setup_ns\":", out);
    histogram_json(out, &r->session_setup);
    fputc(',', out);
    connection_json(out, &r->connection);
    fputc(',', out);
    timeline_json(out, &r->timeline, r->end_ns);
    if(r->latencies.enabled)
        latencies_json(out, &r->latencies);
}
