/* Counts one client run for the result record of SPEC §6. */
#ifndef UABENCH_RECORDER_H
#define UABENCH_RECORDER_H

#include "histogram.h"

#include <stdint.h>
#include <stdio.h>

#define MAX_EXAMPLES 5

typedef struct {
    char *items[MAX_EXAMPLES];
    int count;
} examples;

typedef struct {
    uint64_t attempted, succeeded, failed, values;
    uint64_t checked, verification_failed;
    examples verification_examples, error_examples;
    histogram latency;
    histogram session_setup;  /* SPEC §6: one entry per session */
    int64_t start_ns, end_ns;  /* wall clock of the measured phase */
} recorder;

/* Keeps at most MAX_EXAMPLES distinct strings. */
void examples_add(examples *list, const char *text);

void recorder_operation(recorder *r, int64_t latency_ns, int ok, uint64_t values,
                        const char *error);
/* One data-change notification of the subscribe workload (no latency): a good one
 * succeeded with one value, a Bad one (or a refused monitored item) failed. */
void recorder_notification(recorder *r, int ok, const char *error);
void recorder_session_ready(recorder *r, int64_t setup_ns);
void recorder_verification(recorder *r, const char *failure); /* NULL = passed */

/* Writes the record's fields from "start_ns" through "session_setup_ns" (no braces). */
void recorder_json(FILE *out, const recorder *r);

#endif
