/* The tick rules of SPEC §3 "Read verification" (R1–R4): what a verified Tick or Signal_i
 * value must agree with, beyond its own encoding (verify.c): the Tick of the same response,
 * the values the same session saw before, and its SourceTimestamp. State is per session and
 * distinct node, allocated once at tick_check_init: judging a value allocates nothing. */
#ifndef UABENCH_TICK_CHECK_H
#define UABENCH_TICK_CHECK_H

#include "model.h"

#include <open62541/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    size_t positions;        /* len(nodes) of the config */
    size_t nodes;            /* distinct Tick and Signal_i nodes among them */
    int sessions;
    int32_t *node_of;        /* config position -> distinct node, -1 for the other kinds */
    uint32_t *last;          /* [session * nodes + node]: the highest tick seen (R2, R3) */
    UA_DateTime *last_time;  /* its SourceTimestamp (R4) */
    uint8_t *seen;
    uint64_t *advanced;      /* [node]: forward steps in the measured phase, all sessions (R3) */
} tick_check;

/* `classes[p]` is the node at config position p. */
void tick_check_init(tick_check *c, const node_class *classes, size_t positions, int sessions);

/* R1's reference: the first Good, well-typed Tick among a response's values. */
typedef struct {
    bool have;
    uint32_t tick;
} response_tick;

void response_tick_find(response_tick *ref, const node_class *classes, const UA_DataValue *values,
                        size_t count);

/* Judges a value that passed verify_value, at config position `position`, received on the
 * wall clock at `received`; forward steps count towards ticks_advanced when `measured`. True
 * if it keeps R1–R4 (always for a node that is neither Tick nor a Signal), else false with
 * the first broken rule in `reason`. */
bool tick_check_value(tick_check *c, int session, size_t position, node_class node,
                      const char *name, const UA_DataValue *value, const response_tick *ref,
                      UA_DateTime received, bool measured, char *reason, size_t reason_size);

/* SPEC §6 verification.ticks_advanced: the largest sum of forward steps over the nodes. */
uint64_t tick_check_advanced(const tick_check *c);

void tick_check_free(tick_check *c);

#endif
