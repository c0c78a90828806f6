/* Time sources: a monotonic clock for scheduling and latencies, the wall clock for the
 * result record's start_ns/end_ns. */
#ifndef UABENCH_CLOCK_H
#define UABENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static inline int64_t wall_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
