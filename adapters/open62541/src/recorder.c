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

void recorder_operation(recorder *r, int64_t latency_ns, int ok, uint64_t values,
                        const char *error) {
    r->attempted++;
    if(ok) {
        r->succeeded++;
        r->values += values;
        histogram_record(&r->latency, latency_ns);
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

static void examples_json(FILE *out, const examples *list) {
    fputc('[', out);
    for(int i = 0; i < list->count; i++) {
        if(i)
            fputc(',', out);
        json_write_string(out, list->items[i]);
    }
    fputc(']', out);
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
    fputs("},\"errors\":{\"examples\":", out);
    examples_json(out, &r->error_examples);
    fputs("},\"throughput\":{\"ops_per_s\":", out);
    json_number(out, (double)r->succeeded / seconds);
    fputs(",\"values_per_s\":", out);
    json_number(out, (double)r->values / seconds);
    fputs("},\"latency_ns\":", out);
    histogram_json(out, &r->latency);
    fputs(",\"session_setup_ns\":", out);
    histogram_json(out, &r->session_setup);
}
