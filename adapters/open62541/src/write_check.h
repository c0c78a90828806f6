/* The write workload's verification pass (SPEC §3): after the measured phase session 0
 * writes a recognisable pattern to every node of `nodes` and reads it back. */
#ifndef UABENCH_WRITE_CHECK_H
#define UABENCH_WRITE_CHECK_H

#include "config.h"
#include "recorder.h"
#include "session.h"

/* The value written to the node at `position` for pattern p (1-1000, picked per run). */
double pattern_value(int pattern, size_t position);

void write_check_run(const client_config *config, const session_set *sessions,
                     recorder *rec);

#endif
