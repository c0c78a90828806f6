/* The tick rules of SPEC §3 "Read verification" (R1–R4): what a verified Tick or Signal_i
 * value must agree with, beyond its own encoding (verify.c): the Tick of the same response,
 * what the same session had received before the request was sent, the values it saw of the
 * node, and its SourceTimestamp. State is per session and distinct node, allocated once at
 * tick_check_init (the request's high-water tick lives in its in-flight slot): judging a
 * value allocates nothing. */
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
    uint32_t *high;          /* [session]: high-water tick mod 16384, TICK_NONE before any (R2) */
    uint64_t *advanced;      /* [node]: forward steps in the measured phase, all sessions (R3) */
} tick_check;

/* No tick received yet: the high-water tick of a session before its first Tick or Signal. */
#define TICK_NONE UINT32_MAX

/* `classes[p]` is the node at config position p. */
void tick_check_init(tick_check *c, const node_class *classes, size_t positions, int sessions);

/* R1's reference: the first Good, well-typed Tick among a response's values. */
typedef struct {
    bool have;
    uint32_t tick;
} response_tick;

void response_tick_find(response_tick *ref, const node_class *classes, const UA_DataValue *values,
                        size_t count);

/* R2: the session's high-water tick now; a request keeps it from just before it is sent
 * (earlier is sound too: the high-water tick only moves on), to judge its response. */
uint32_t tick_check_sent(const tick_check *c, int session);

/* Judges a value that passed verify_value, at config position `position`, of a response to
 * a request sent with high-water tick `sent` (tick_check_sent), received on the wall clock at
 * `received`; it moves the session's high-water tick on, and its forward steps count towards
 * ticks_advanced when `measured`. True if it keeps R1–R4 (always for a node that is neither
 * Tick nor a Signal), else false with the first broken rule in `reason`. */
bool tick_check_value(tick_check *c, int session, size_t position, node_class node,
                      const char *name, const UA_DataValue *value, const response_tick *ref,
                      uint32_t sent, UA_DateTime received, bool measured, char *reason,
                      size_t reason_size);

/* SPEC §3 subscribe, the tick step of an item's update with tick `next` after one with tick
 * `last` (a Tick's taken mod 16384): d = (next - last) mod 16384; 1 <= d < 8192 is a forward
 * step that adds d - 1 to `gaps`, d = 0 (the same tick again: delivered twice) adds 1 to
 * `duplicates`, d >= 8192 (an older tick: a restarted server, a republished notification)
 * adds to neither. */
static inline void tick_step(uint32_t last, uint32_t next, uint64_t *gaps, uint64_t *duplicates) {
    uint32_t d = (next - last) % TICK_MODULUS; /* 2^32 is a multiple of 16384 */
    if(d == 0)
        (*duplicates)++;
    else if(d < TICK_MODULUS / 2)
        *gaps += d - 1;
}

/* SPEC §6 verification.ticks_advanced: the largest sum of forward steps over the nodes. */
uint64_t tick_check_advanced(const tick_check *c);

void tick_check_free(tick_check *c);

#endif
