#include "tick_check.h"

#include "verify.h"

#include <stdio.h>
#include <stdlib.h>

#define HALF_TICKS (TICK_MODULUS / 2)
#define FUTURE_LIMIT (UA_DATETIME_SEC) /* R4: clocks of one host, or NTP-synchronised hosts */

static bool moving(node_class node) {
    return node.kind == NODE_TICK || node.kind == NODE_SIGNAL;
}

/* Distinct nodes: Tick is one node, Signal_i one per index i. */
static uint64_t node_key(node_class node) {
    return node.kind == NODE_TICK ? 0 : (uint64_t)node.index + 1;
}

typedef struct {
    uint64_t key;
    size_t position;
} keyed;

static int by_key(const void *a, const void *b) {
    uint64_t x = ((const keyed *)a)->key, y = ((const keyed *)b)->key;
    return (x > y) - (x < y);
}

void tick_check_init(tick_check *c, const node_class *classes, size_t positions, int sessions) {
    c->positions = positions;
    c->sessions = sessions;
    c->node_of = malloc(positions * sizeof(int32_t));
    /* A node listed twice shares its state: sort its positions by node once, at the start. */
    keyed *order = malloc(positions * sizeof(keyed));
    size_t count = 0;
    for(size_t p = 0; p < positions; p++) {
        c->node_of[p] = -1;
        if(moving(classes[p]))
            order[count++] = (keyed){node_key(classes[p]), p};
    }
    qsort(order, count, sizeof(keyed), by_key);
    c->nodes = 0;
    for(size_t k = 0; k < count; k++) {
        if(k > 0 && order[k].key != order[k - 1].key)
            c->nodes++;
        c->node_of[order[k].position] = (int32_t)c->nodes;
    }
    if(count > 0)
        c->nodes++;
    free(order);
    size_t cells = c->nodes * (size_t)sessions;
    c->last = calloc(cells ? cells : 1, sizeof(uint32_t));
    c->last_time = calloc(cells ? cells : 1, sizeof(UA_DateTime));
    c->seen = calloc(cells ? cells : 1, 1);
    c->advanced = calloc(c->nodes ? c->nodes : 1, sizeof(uint64_t));
    c->high = malloc((size_t)(sessions > 0 ? sessions : 1) * sizeof(uint32_t));
    for(int s = 0; s < sessions; s++)
        c->high[s] = TICK_NONE;
}

uint32_t tick_check_sent(const tick_check *c, int session) {
    return c->high[session];
}

void tick_check_free(tick_check *c) {
    free(c->node_of);
    free(c->last);
    free(c->last_time);
    free(c->seen);
    free(c->advanced);
    free(c->high);
}

void response_tick_find(response_tick *ref, const node_class *classes, const UA_DataValue *values,
                        size_t count) {
    ref->have = false;
    for(size_t j = 0; j < count; j++) {
        const UA_DataValue *dv = &values[j];
        if(classes[j].kind == NODE_TICK && !(dv->hasStatus && dv->status != UA_STATUSCODE_GOOD) &&
           UA_Variant_hasScalarType(&dv->value, &UA_TYPES[UA_TYPES_UINT32])) {
            ref->have = true;
            ref->tick = *(const UA_UInt32 *)dv->value.data;
            return;
        }
    }
}

/* R3 and R4: the forward step from `last` to `tick` (0 if it is not ahead). A Signal's tick
 * wraps at 16384: a step back of half the range or more is a forward step across the wrap. */
static uint32_t forward_step(node_class node, uint32_t last, uint32_t tick) {
    if(node.kind == NODE_TICK)
        return tick > last ? tick - last : 0;
    uint32_t ahead = (tick - last) % TICK_MODULUS;
    return ahead < HALF_TICKS ? ahead : 0;
}

/* R2: the session's high-water tick moves on to `tick` (mod 16384) when it is a forward
 * step from it, whatever order the responses are processed in. */
static void raise_high(uint32_t *high, uint32_t tick) {
    uint32_t ahead = *high == TICK_NONE ? 1 : (tick - *high) % TICK_MODULUS;
    if(ahead >= 1 && ahead < HALF_TICKS)
        *high = tick;
}

bool tick_check_value(tick_check *c, int session, size_t position, node_class node,
                      const char *name, const UA_DataValue *value, const response_tick *ref,
                      uint32_t sent, UA_DateTime received, bool measured, char *reason,
                      size_t reason_size) {
    int32_t id = c->node_of[position % c->positions];
    if(id < 0)
        return true;
    uint32_t tick = value_tick(node, &value->value);
    uint32_t wrapped = tick % TICK_MODULUS;
    raise_high(&c->high[session], wrapped);
    if(!value->hasSourceTimestamp) {
        snprintf(reason, reason_size, "%s: no SourceTimestamp", name);
        return false;
    }
    UA_DateTime stamp = value->sourceTimestamp;
    /* R1: one update may fall between the server reading Tick and a Signal, whichever it
     * reads first, so the Signal's tick lies within one of Tick's. */
    if(node.kind == NODE_SIGNAL && ref->have) {
        uint32_t expected = ref->tick % TICK_MODULUS;
        uint32_t apart = (tick - expected) % TICK_MODULUS;
        if(apart > 1 && apart < TICK_MODULUS - 1) {
            snprintf(reason, reason_size, "%s: tick %u, but Tick %u (mod 16384) in the same response",
                     name, tick, expected);
            return false;
        }
    }
    /* R2: not older than what had arrived before the request was sent; arrival order says
     * nothing, as a server may answer concurrent requests in any order. Behind by one is
     * allowed: a server's update is not atomic across nodes. */
    if(sent != TICK_NONE) {
        uint32_t back = (sent - wrapped) % TICK_MODULUS;
        if(back >= 2 && back < HALF_TICKS) {
            snprintf(reason, reason_size,
                     "%s: tick %u, but tick %u had arrived before this request was sent", name,
                     wrapped, sent);
            return false;
        }
    }
    size_t cell = (size_t)session * c->nodes + (size_t)id;
    if(!c->seen[cell]) {
        c->seen[cell] = 1;
        c->last[cell] = tick;
        c->last_time[cell] = stamp;
    } else {
        uint32_t last = c->last[cell];
        uint32_t forward = forward_step(node, last, tick);
        /* R3 and R4 against the highest tick seen of the node: a tick behind it (answered out
         * of order) neither counts nor lowers it. */
        if(forward > 0) {
            UA_DateTime last_time = c->last_time[cell];
            c->last[cell] = tick;
            c->last_time[cell] = stamp;
            if(measured)
                c->advanced[id] += forward;
            if(stamp < last_time) {
                snprintf(reason, reason_size,
                         "%s: tick %u has an earlier SourceTimestamp than tick %u", name, tick, last);
                return false;
            }
        }
    }
    if(stamp > received + FUTURE_LIMIT) {
        snprintf(reason, reason_size, "%s: SourceTimestamp %.1f s in the future", name,
                 (double)(stamp - received) / UA_DATETIME_SEC);
        return false;
    }
    return true;
}

uint64_t tick_check_advanced(const tick_check *c) {
    uint64_t most = 0;
    for(size_t n = 0; n < c->nodes; n++)
        if(c->advanced[n] > most)
            most = c->advanced[n];
    return most;
}
