/* The `read` and `write` workloads of SPEC §3: in_flight asynchronous requests per session,
 * closed loop or open loop at fixed scheduled times, warm-up, measured phase and drain. */
#ifndef UABENCH_REQUEST_WORKLOAD_H
#define UABENCH_REQUEST_WORKLOAD_H

#include "config.h"
#include "recorder.h"
#include "session.h"

void request_workload_run(const client_config *config, session_set *sessions,
                          recorder *rec);

#endif
