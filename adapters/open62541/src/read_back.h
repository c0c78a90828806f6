/* SPEC §3 W1, writes read back under load (write workload, verify): which of session 0's
 * writes are sampled, the read-backs in flight, and the judgement of each value read back.
 * A read-back keeps two integers (the sampled write's index and C, the lowest index of
 * session 0 in flight when it was sent) in a pool allocated at the start: judging a value
 * allocates nothing. */
#ifndef UABENCH_READ_BACK_H
#define UABENCH_READ_BACK_H

#include <open62541/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Session 0's request k is sampled when k mod 64 = 63 (k from its first request, warm-up
 * included) and its send (open loop: scheduled) time is in the measured phase. */
static inline bool read_back_sampled(uint64_t k) {
    return k % 64 == 63;
}

/* A request slot of session 0 as C reads it: the request it carries (its index from the
 * session's first) and whether that is still in flight. The client's slots begin with one. */
typedef struct {
    uint64_t k;
    bool busy;
} request_mark;

/* C for session 0's request `next`, sent now: the lowest index still in flight among `count`
 * slots `stride` bytes apart, each beginning with a request_mark, or `next` if none is lower.
 * Requests are numbered in the order they are sent, so this is the lowest one not finished
 * (its response arrived, or it failed). A scan, once per 64 writes: cheaper than keeping the
 * slots ordered on every send. */
uint64_t read_back_lowest(const void *slots, size_t count, size_t stride, uint64_t next);

/* What the judgement needs of the config. */
typedef struct {
    char *const *nodes;  /* the config's `nodes` */
    size_t node_count;
    size_t npr;          /* nodes_per_request */
    int sessions;
} read_back_rule;

/* Judges the value read back from config position `position` after session 0's write
 * `sampled` succeeded, `oldest` being C. True if it is Good and a Double that some write of
 * this run put on that node and not one of session 0's writes that had completed before
 * `sampled` was sent; else false with SPEC's example ("read-back of <node>: ...") in
 * `reason`. */
bool read_back_judge(const read_back_rule *rule, size_t position, const UA_DataValue *value,
                     uint64_t oldest, uint64_t sampled, char *reason, size_t reason_size);

/* A read-back in flight: the sampled write and its C. */
typedef struct {
    uint64_t sampled;
    uint64_t oldest;
    bool busy;
} read_back;

/* The read-backs in flight, addressed by a small id (the async Read's userdata). */
typedef struct {
    read_back *items;
    uint32_t *free_ids;
    uint32_t capacity, free_count;
} read_back_pool;

void read_back_pool_init(read_back_pool *p, uint32_t capacity);
/* A free entry, marked busy. The pool doubles if every entry is in flight (a server that
 * answers these Reads much later than the writes): rare, and never per value. */
uint32_t read_back_pool_take(read_back_pool *p, uint64_t sampled, uint64_t oldest);
void read_back_pool_give(read_back_pool *p, uint32_t id);

static inline uint32_t read_back_pool_in_flight(const read_back_pool *p) {
    return p->capacity - p->free_count;
}

#endif
