#include "read_back.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SESSION_STRIDE 1e9
/* Above 2^53 a Double no longer holds every integer: no write of a run gets there. */
#define LARGEST_EXACT 9007199254740992.0

/* "<value>, which no write of this run put there". A value that is no Double is printed
 * with its type, by the SDK's printer (a failure only, so its allocation is off the hot
 * path). */
static bool no_write_put(const char *name, const UA_Variant *value, char *reason,
                         size_t reason_size) {
    char text[64];
    UA_String printed = UA_STRING_NULL;
    if(UA_Variant_hasScalarType(value, &UA_TYPES[UA_TYPES_DOUBLE])) {
        snprintf(text, sizeof(text), "%.17g", *(const UA_Double *)value->data);
    } else if(!value->type) {
        snprintf(text, sizeof(text), "no value");
    } else {
        const char *type = value->type->typeName ? value->type->typeName : "a value";
        if(!UA_Variant_isScalar(value))
            snprintf(text, sizeof(text), "%s array", type);
        else if(UA_print(value->data, value->type, &printed) == UA_STATUSCODE_GOOD)
            snprintf(text, sizeof(text), "%s %.*s", type, (int)printed.length,
                     printed.length ? (const char *)printed.data : "");
        else
            snprintf(text, sizeof(text), "%s", type);
    }
    UA_String_clear(&printed);
    snprintf(reason, reason_size, "read-back of %s: %s, which no write of this run put there",
             name, text);
    return false;
}

bool read_back_judge(const read_back_rule *rule, size_t position, const UA_DataValue *value,
                     uint64_t oldest, uint64_t sampled, char *reason, size_t reason_size) {
    const char *name = rule->nodes[position];
    if(value->hasStatus && value->status != UA_STATUSCODE_GOOD) {
        snprintf(reason, reason_size, "read-back of %s: %s", name,
                 UA_StatusCode_name(value->status));
        return false;
    }
    if(!UA_Variant_hasScalarType(&value->value, &UA_TYPES[UA_TYPES_DOUBLE]))
        return no_write_put(name, &value->value, reason, reason_size);
    double v = *(const UA_Double *)value->value.data;
    if(!(v >= 0) || v >= LARGEST_EXACT || v != floor(v))
        return no_write_put(name, &value->value, reason, reason_size);
    /* v = s·1e9 + m with m < 1e9 (SPEC §3 W1), so (s, m) is unique: a value beyond the last
     * session's 1e9s is no write of this run. */
    uint64_t s = (uint64_t)(v / SESSION_STRIDE);
    if(s >= (uint64_t)rule->sessions)
        return no_write_put(name, &value->value, reason, reason_size);
    uint64_t m = (uint64_t)(v - (double)s * SESSION_STRIDE);
    if(strcmp(rule->nodes[m % rule->node_count], name) != 0)
        return no_write_put(name, &value->value, reason, reason_size);
    /* Session 0's writes before C had completed when `sampled` was sent: the node must hold
     * a later one (or another session's, which the server may order as it likes). */
    if(s == 0 && m / rule->npr < oldest) {
        snprintf(reason, reason_size,
                 "read-back of %s: session 0's write %llu, but its writes before %llu had "
                 "completed when write %llu was sent",
                 name, (unsigned long long)(m / rule->npr), (unsigned long long)oldest,
                 (unsigned long long)sampled);
        return false;
    }
    return true;
}

uint64_t read_back_lowest(const void *slots, size_t count, size_t stride, uint64_t next) {
    uint64_t lowest = next;
    for(size_t i = 0; i < count; i++) {
        const request_mark *mark = (const request_mark *)((const char *)slots + i * stride);
        if(mark->busy && mark->k < lowest)
            lowest = mark->k;
    }
    return lowest;
}

void read_back_pool_init(read_back_pool *p, uint32_t capacity) {
    p->items = calloc(capacity, sizeof(read_back));
    p->free_ids = calloc(capacity, sizeof(uint32_t));
    p->capacity = capacity;
    p->free_count = capacity;
    for(uint32_t i = 0; i < capacity; i++)
        p->free_ids[i] = capacity - 1 - i;
}

static void grow(read_back_pool *p) {
    uint32_t old = p->capacity, capacity = 2 * old;
    p->items = realloc(p->items, capacity * sizeof(read_back));
    p->free_ids = realloc(p->free_ids, capacity * sizeof(uint32_t));
    memset(&p->items[old], 0, old * sizeof(read_back));
    for(uint32_t i = 0; i < old; i++)
        p->free_ids[p->free_count++] = capacity - 1 - i;
    p->capacity = capacity;
}

uint32_t read_back_pool_take(read_back_pool *p, uint64_t sampled, uint64_t oldest) {
    if(p->free_count == 0)
        grow(p);
    uint32_t id = p->free_ids[--p->free_count];
    p->items[id] = (read_back){sampled, oldest, true};
    return id;
}

void read_back_pool_give(read_back_pool *p, uint32_t id) {
    p->items[id].busy = false;
    p->free_ids[p->free_count++] = id;
}
