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
}

void tick_check_free(tick_check *c) {
    free(c->node_of);
    free(c->last);
    free(c->last_time);
    free(c->seen);
    free(c->advanced);
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

/* R2: how far `tick` lies behind `last` (0 if it is not behind), and the forward step
 * from `last` to it (0 if it is not ahead). A Signal's tick wraps at 16384: a step back of
 * half the range or more is a forward step across the wrap. */
static void compare(node_class node, uint32_t last, uint32_t tick, uint32_t *back,
                    uint32_t *forward) {
    *back = *forward = 0;
    if(node.kind == NODE_TICK) {
        if(tick < last)
            *back = last - tick;
        else
            *forward = tick - last;
        return;
    }
    uint32_t behind = (last - tick) % TICK_MODULUS;
    if(behind < HALF_TICKS)
        *back = behind;
    else
        *forward = TICK_MODULUS - behind;
}

bool tick_check_value(tick_check *c, int session, size_t position, node_class node,
                      const char *name, const UA_DataValue *value, const response_tick *ref,
                      UA_DateTime received, bool measured, char *reason, size_t reason_size) {
    int32_t id = c->node_of[position % c->positions];
    if(id < 0)
        return true;
    uint32_t tick = value_tick(node, &value->value);
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
    size_t cell = (size_t)session * c->nodes + (size_t)id;
    if(!c->seen[cell]) {
        c->seen[cell] = 1;
        c->last[cell] = tick;
        c->last_time[cell] = stamp;
    } else {
        uint32_t last = c->last[cell], back, forward;
        compare(node, last, tick, &back, &forward);
        /* R2: concurrent requests of a session may be answered out of order: one back. */
        if(back > 1) {
            snprintf(reason, reason_size, "%s: tick went back from %u to %u", name, last, tick);
            return false;
        }
        if(forward > 0) {
            UA_DateTime last_time = c->last_time[cell];
            c->last[cell] = tick;  /* the highest seen: repeated steps back are still found */
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
