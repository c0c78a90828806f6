/* The `read` and `write` workloads of SPEC §3: in_flight asynchronous requests per session,
 * closed loop (each slot waiting think_ms between a response and its next request) or open
 * loop at fixed scheduled times, warm-up, measured phase and drain. */
#ifndef UABENCH_REQUEST_WORKLOAD_H
#define UABENCH_REQUEST_WORKLOAD_H

#include "config.h"
#include "recorder.h"
#include "session.h"

#include <stddef.h>
#include <stdint.h>

/* SPEC §3: node j of request k is nodes[(k*npr + j) mod n], i.e. the request starts at this
 * position and wraps around. */
static inline size_t request_first_node(uint64_t k, size_t npr, size_t n) {
    return (size_t)((k * npr) % n);
}

/* SPEC §3: the Double that request k of session s writes to its node j. */
static inline double write_value(int session, uint64_t k, size_t npr, size_t j) {
    return session * 1e9 + (double)k * (double)npr + (double)j;
}

/* Runs the warm-up, the measured phase and the drain; returns how many requests the SDK
 * took to send (the others it refused, each a failed operation). */
uint64_t request_workload_run(const client_config *config, session_set *sessions,
                              recorder *rec);

#endif
