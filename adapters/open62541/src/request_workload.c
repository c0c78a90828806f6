/* Hot path notes: every ReadValueId/WriteValue is built before the run. Request k of a
 * session carries nodes[(k*npr + j) mod N], so the nodes are laid out once as a ring of
 * N + npr - 1 entries and request k simply points into it at offset (k*npr) mod N. The SDK
 * encodes a request while sending it, so one request struct per session is reused. */
#include "request_workload.h"

#include "clock.h"
#include "loop_wait.h"
#include "model.h"
#include "read_back.h"
#include "tick_check.h"
#include "verify.h"

#include <open62541/client_highlevel_async.h>
#include <stdlib.h>
#include <string.h>

#define DRAIN_NS 5000000000LL
/* SPEC §3 Connection loss (RETRY_S of uabench_contract): with `reconnect`, a closed-loop slot
 * whose request failed waits this long before its next one, so a dead connection is not
 * spun on; so does, whatever `reconnect` says, a slot whose request the SDK refused to send
 * (its SecureChannel not open). */
#define RETRY_NS 10000000LL

typedef struct session_load session_load;
typedef struct slot slot;

/* Slots waiting out the same delay are ready in the order they began it: a FIFO ring. */
typedef struct {
    slot **items;
    int first, count;
} wait_ring;

struct slot {
    request_mark mark; /* its request k and whether in flight; first, as W1's C reads it */
    session_load *owner;
    int64_t origin;    /* latency origin: send time (closed loop) or scheduled time (open) */
    int measured;
    uint32_t sent_high; /* R2: the session's high-water tick when it was sent (read, verify) */
    uint64_t oldest;    /* W1's C: a sampled write's lowest index in flight when it was sent */
    int64_t ready_at;   /* when the slot may send again (think time, retry) */
};

struct session_load {
    int index;
    UA_Client *client;
    UA_ReadValueId *ring;
    UA_ReadRequest read;
    UA_WriteRequest write;
    UA_WriteValue *write_values;
    UA_Double *write_doubles;
    slot *slots;
    slot **free_slots;
    int free_count;
    /* SPEC §3 think_ms: slots whose response came, waiting out the think time; and slots
     * whose request failed, waiting RETRY_NS. */
    wait_ring thinking, retrying;
    uint64_t next_k;   /* next request to send */
    int starting;      /* its slots are first filled from the main loop */
};

typedef struct {
    const client_config *config;
    recorder *rec;
    size_t node_count;
    size_t npr;
    const char **ring_names;
    node_class *ring_classes;
    tick_check ticks;  /* SPEC §3 R1–R4: per session and node, read with verify */
    int reading_back;  /* SPEC §3 W1: write with verify */
    read_back_rule read_back_rule;
    read_back_pool read_backs;
    UA_ReadRequest read_back_request; /* encoded when sent, so one serves every read-back */
    int64_t load_start, measure_start, measure_end;
    double ns_per_request;  /* open loop: between two scheduled requests of a session */
    int64_t think_ns;       /* closed loop: a slot's wait between a response and its next send */
    int finished;
    uint64_t accepted;  /* requests the SDK took to send */
    session_load *sessions;
} run_state;

static run_state run;

/* --- scheduling ---------------------------------------------------------------------- */

/* Open loop: the total rate is spread evenly over the sessions, session s at offset s. */
static int64_t scheduled_time(const session_load *s, uint64_t k) {
    double offset = ((double)k * run.config->sessions + s->index) * run.ns_per_request;
    return offset > 4e18 ? INT64_MAX : run.load_start + (int64_t)offset;
}

static int is_measured(int64_t origin) {
    return origin >= run.measure_start && origin < run.measure_end;
}

static size_t ring_offset(uint64_t k) {
    return request_first_node(k, run.npr, run.node_count);
}

/* --- completion ---------------------------------------------------------------------- */

static void wait_push(wait_ring *ring, slot *sl, int64_t ready_at) {
    sl->ready_at = ready_at;
    ring->items[(ring->first + ring->count++) % run.config->in_flight] = sl;
}

/* The ring's slots whose wait is over are free. */
static void wait_over(wait_ring *ring, session_load *s, int64_t now) {
    while(ring->count > 0 && ring->items[ring->first]->ready_at <= now) {
        s->free_slots[s->free_count++] = ring->items[ring->first];
        ring->first = (ring->first + 1) % run.config->in_flight;
        ring->count--;
    }
}

/* The end of the first wait of the ring that is due before measure_end (nothing is sent
 * after it: in the drain such an end lies in the past and would make the wait a
 * busy-poll), else `until`. */
static int64_t wait_next(const wait_ring *ring, int64_t until) {
    if(ring->count == 0)
        return until;
    int64_t next = ring->items[ring->first]->ready_at;
    return next < run.measure_end && next < until ? next : until;
}

/* The slot's request ended at `now`: it is free again, after the think time if any, or
 * (closed loop) RETRY_NS after a failure when `retry` says so. */
static void release(slot *sl, int64_t now, int retry) {
    session_load *s = sl->owner;
    sl->mark.busy = false;
    if(retry && !run.config->open_loop)
        wait_push(&s->retrying, sl, now + RETRY_NS);
    else if(run.think_ns > 0)
        wait_push(&s->thinking, sl, now + run.think_ns);
    else
        s->free_slots[s->free_count++] = sl;
}

static void pump(session_load *s, int64_t now);

/* Every value on its own (SPEC §4, R5), then a Tick or Signal_i against the response's Tick
 * what its session had received before the request was sent and the node's values it saw
 * (R1–R4): one verification per value, failed by the first rule it breaks. */
static void verify_results(const slot *sl, size_t offset, const UA_DataValue *results,
                           size_t count) {
    char reason[160];
    UA_DateTime received = UA_DateTime_now();
    response_tick ref;
    response_tick_find(&ref, &run.ring_classes[offset], results, count);
    for(size_t j = 0; j < count; j++) {
        const UA_DataValue *dv = &results[j];
        if(dv->hasStatus && dv->status != UA_STATUSCODE_GOOD)
            continue; /* a failed value: counted as a failed operation, not checked */
        node_class node = run.ring_classes[offset + j];
        const char *name = run.ring_names[offset + j];
        int ok = verify_value(node, name, &dv->value, reason, sizeof(reason)) &&
                 tick_check_value(&run.ticks, sl->owner->index, offset + j, node, name, dv, &ref,
                                  sl->sent_high, received, sl->measured, reason, sizeof(reason));
        if(sl->measured)
            recorder_verification(run.rec, ok ? NULL : reason);
    }
}

/* SPEC §3 Connection loss where the SDK's state callback is silent (connection.h): a request
 * of the session failed with `status`, or succeeded. */
static void track_connection(const session_load *s, int ok, UA_StatusCode status) {
    if(ok)
        connection_mark_restored(&run.rec->connection, s->index, wall_ns(), NULL);
    else if(connection_status(status))
        connection_mark_lost(&run.rec->connection, s->index, wall_ns());
}

static const char *status_error(UA_StatusCode service, size_t got, const UA_StatusCode *first_bad) {
    if(service != UA_STATUSCODE_GOOD)
        return UA_StatusCode_name(service);
    if(got != run.npr)
        return "wrong number of results";
    return first_bad ? UA_StatusCode_name(*first_bad) : NULL;
}

static void on_read(UA_Client *client, void *userdata, UA_UInt32 request_id,
                    UA_ReadResponse *response) {
    (void)client;
    (void)request_id;
    if(run.finished)
        return;
    slot *sl = userdata;
    int64_t now = mono_ns();
    /* Warm-up judges and verifies too (the same work as the measured phase); only
     * measured operations are recorded, every good one goes into the timeline. */
    const UA_StatusCode *bad = NULL;
    for(size_t j = 0; j < response->resultsSize && !bad; j++)
        if(response->results[j].hasStatus && response->results[j].status != UA_STATUSCODE_GOOD)
            bad = &response->results[j].status;
    const char *error = status_error(response->responseHeader.serviceResult,
                                     response->resultsSize, bad);
    track_connection(sl->owner, error == NULL, response->responseHeader.serviceResult);
    if(!error)
        timeline_completed(&run.rec->timeline, now, run.npr);
    if(sl->measured)
        recorder_operation(run.rec, sl->origin, now - sl->origin, error == NULL, run.npr,
                           error);
    if(run.config->verify)
        verify_results(sl, ring_offset(sl->mark.k), response->results,
                       response->resultsSize < run.npr ? response->resultsSize : run.npr);
    release(sl, now, error && run.config->reconnect);
    pump(sl->owner, now);
}

/* --- W1: writes read back under load ------------------------------------------------ */

static int is_sampled(const slot *sl) {
    return run.reading_back && sl->owner->index == 0 && sl->measured &&
           read_back_sampled(sl->mark.k);
}

/* Every value of a read-back that brought none to judge fails with `error`. */
static void read_back_failed(const read_back *rb, const char *error) {
    char reason[256];
    size_t offset = ring_offset(rb->sampled);
    for(size_t j = 0; j < run.npr; j++) {
        snprintf(reason, sizeof(reason), "read-back of %s: %s", run.ring_names[offset + j],
                 error);
        recorder_read_back(run.rec, reason);
    }
}

static void on_read_back(UA_Client *client, void *userdata, UA_UInt32 request_id,
                         UA_ReadResponse *response) {
    (void)client;
    (void)request_id;
    if(run.finished)
        return;
    uint32_t id = (uint32_t)(uintptr_t)userdata;
    const read_back *rb = &run.read_backs.items[id];
    const char *error = status_error(response->responseHeader.serviceResult,
                                     response->resultsSize, NULL);
    if(error) {
        read_back_failed(rb, error);
    } else {
        char reason[256];
        size_t offset = ring_offset(rb->sampled);
        for(size_t j = 0; j < run.npr; j++) {
            int ok = read_back_judge(&run.read_back_rule, (offset + j) % run.node_count,
                                     &response->results[j], rb->oldest, rb->sampled, reason,
                                     sizeof(reason));
            recorder_read_back(run.rec, ok ? NULL : reason);
        }
    }
    read_back_pool_give(&run.read_backs, id);
}

/* Session 0 reads back the nodes of its write `sampled` (SPEC §3 W1): no in_flight slot,
 * no operation; the drain waits for it. */
static void send_read_back(uint64_t sampled, uint64_t oldest) {
    uint32_t id = read_back_pool_take(&run.read_backs, sampled, oldest);
    run.read_back_request.nodesToRead = &run.sessions[0].ring[ring_offset(sampled)];
    UA_StatusCode rv = UA_Client_sendAsyncReadRequest(run.sessions[0].client,
                                                      &run.read_back_request, on_read_back,
                                                      (void *)(uintptr_t)id, NULL);
    if(rv != UA_STATUSCODE_GOOD) {
        read_back_failed(&run.read_backs.items[id], UA_StatusCode_name(rv));
        read_back_pool_give(&run.read_backs, id);
    }
}

/* Read-backs the drain did not bring back: each of their values failed. */
static void read_backs_unanswered(void) {
    for(uint32_t id = 0; id < run.read_backs.capacity; id++)
        if(run.read_backs.items[id].busy)
            read_back_failed(&run.read_backs.items[id],
                             "no response within 5 s after the measured phase");
}

static void on_write(UA_Client *client, void *userdata, UA_UInt32 request_id,
                     UA_WriteResponse *response) {
    (void)client;
    (void)request_id;
    if(run.finished)
        return;
    slot *sl = userdata;
    int64_t now = mono_ns();
    const UA_StatusCode *bad = NULL;
    for(size_t j = 0; j < response->resultsSize && !bad; j++)
        if(response->results[j] != UA_STATUSCODE_GOOD)
            bad = &response->results[j];
    const char *error = status_error(response->responseHeader.serviceResult,
                                     response->resultsSize, bad);
    track_connection(sl->owner, error == NULL, response->responseHeader.serviceResult);
    if(!error)
        timeline_completed(&run.rec->timeline, now, run.npr);
    if(sl->measured)
        recorder_operation(run.rec, sl->origin, now - sl->origin, error == NULL, run.npr,
                           error);
    if(!error && is_sampled(sl))
        send_read_back(sl->mark.k, sl->oldest);
    release(sl, now, error && run.config->reconnect);
    pump(sl->owner, now);
}

/* --- sending ------------------------------------------------------------------------- */

static UA_StatusCode send_read(session_load *s, slot *sl) {
    s->read.nodesToRead = &s->ring[ring_offset(sl->mark.k)];
    return UA_Client_sendAsyncReadRequest(s->client, &s->read, on_read, sl, NULL);
}

static UA_StatusCode send_write(session_load *s, slot *sl) {
    size_t offset = ring_offset(sl->mark.k);
    for(size_t j = 0; j < run.npr; j++) {
        s->write_values[j].nodeId = s->ring[offset + j].nodeId;
        s->write_doubles[j] = write_value(s->index, sl->mark.k, run.npr, j);
    }
    return UA_Client_sendAsyncWriteRequest(s->client, &s->write, on_write, sl, NULL);
}

/* Sends request next_k with the given latency origin. If the SDK refuses it (its
 * SecureChannel is not open: a lost connection), it failed: a failed operation if measured,
 * the slot waits RETRY_NS (closed loop) and the open loop goes on with its schedule. */
static void send_next(session_load *s, int64_t origin) {
    slot *sl = s->free_slots[--s->free_count];
    sl->mark = (request_mark){s->next_k, true};
    sl->origin = origin;
    sl->measured = is_measured(origin);
    /* R2: before the send, so no response processed after it can count as received before */
    sl->sent_high = tick_check_sent(&run.ticks, s->index);
    if(is_sampled(sl)) /* W1's C: the sampled write's own index among those in flight */
        sl->oldest = read_back_lowest(s->slots, (size_t)run.config->in_flight, sizeof(slot),
                                      sl->mark.k);
    /* SPEC §6 send_lag_ns: the instant the request is handed to the SDK's send call. */
    int64_t sent_at = run.config->open_loop ? mono_ns() : 0;
    UA_StatusCode rv = run.config->workload == WORKLOAD_READ ? send_read(s, sl)
                                                             : send_write(s, sl);
    s->next_k++;
    if(rv != UA_STATUSCODE_GOOD) {
        track_connection(s, 0, rv);
        int64_t now = mono_ns();
        if(sl->measured)
            recorder_operation(run.rec, origin, now - origin, 0, 0, UA_StatusCode_name(rv));
        release(sl, now, 1);
        return;
    }
    run.accepted++;
    if(run.config->open_loop && sl->measured)
        recorder_sent(run.rec, sent_at - origin);
}

/* Fills free slots with whatever is due. Closed loop: send at once (a slot at the end of
 * its think time) until the measured phase ends. Open loop: send every request whose
 * scheduled time has come, including a backlog from the measured phase during the drain
 * (its latency counts from schedule). */
static void pump(session_load *s, int64_t now) {
    s->starting = 0;
    wait_over(&s->thinking, s, now);
    wait_over(&s->retrying, s, now);
    while(s->free_count > 0) {
        int64_t origin = now;
        if(run.config->open_loop) {
            origin = scheduled_time(s, s->next_k);
            if(origin > now || origin >= run.measure_end)
                return;
        } else if(now >= run.measure_end) {
            return;
        }
        send_next(s, origin);
    }
}

/* --- the run ------------------------------------------------------------------------- */

static void build_ring(void) {
    size_t length = run.node_count + run.npr - 1;
    run.ring_names = malloc(length * sizeof(char *));
    run.ring_classes = malloc(length * sizeof(node_class));
    for(size_t i = 0; i < length; i++) {
        run.ring_names[i] = run.config->nodes[i % run.node_count];
        run.ring_classes[i] = model_classify(run.ring_names[i]);
    }
}

/* The ReadValueIds of the ring, shared by every session with the same namespace index
 * (normally all of them: one server), so memory does not grow with sessions. */
static UA_ReadValueId *ring_for(const session_set *set, int index) {
    for(int other = 0; other < index; other++)
        if(set->namespace_index[other] == set->namespace_index[index])
            return run.sessions[other].ring;
    size_t length = run.node_count + run.npr - 1;
    UA_ReadValueId *ring = calloc(length, sizeof(UA_ReadValueId));
    for(size_t i = 0; i < length; i++) {
        ring[i].nodeId = UA_NODEID_STRING(set->namespace_index[index],
                                          (char *)run.ring_names[i]);
        ring[i].attributeId = UA_ATTRIBUTEID_VALUE;
    }
    return ring;
}

static void setup_session(session_load *s, int index, const session_set *set) {
    s->index = index;
    s->client = set->clients[index];
    s->ring = ring_for(set, index);
    UA_ReadRequest_init(&s->read);
    s->read.maxAge = 0; /* SPEC §3: every Read asks maxAge 0 and Source timestamps */
    s->read.timestampsToReturn = UA_TIMESTAMPSTORETURN_SOURCE;
    s->read.nodesToReadSize = run.npr;
    UA_WriteRequest_init(&s->write);
    s->write_values = calloc(run.npr, sizeof(UA_WriteValue));
    s->write_doubles = calloc(run.npr, sizeof(UA_Double));
    for(size_t j = 0; j < run.npr; j++) {
        s->write_values[j].attributeId = UA_ATTRIBUTEID_VALUE;
        s->write_values[j].value.hasValue = true;
        UA_Variant_setScalar(&s->write_values[j].value.value, &s->write_doubles[j],
                             &UA_TYPES[UA_TYPES_DOUBLE]);
    }
    s->write.nodesToWrite = s->write_values;
    s->write.nodesToWriteSize = run.npr;

    int in_flight = run.config->in_flight;
    s->slots = calloc((size_t)in_flight, sizeof(slot));
    s->free_slots = calloc((size_t)in_flight, sizeof(slot *));
    for(int i = 0; i < in_flight; i++) {
        s->slots[i].owner = s;
        s->free_slots[i] = &s->slots[i];
    }
    s->free_count = in_flight;
    s->thinking = (wait_ring){calloc((size_t)in_flight, sizeof(slot *)), 0, 0};
    s->retrying = (wait_ring){calloc((size_t)in_flight, sizeof(slot *)), 0, 0};
    s->next_k = 0;
    s->starting = 1;
}

/* Read-backs in flight are about in_flight / 64 (one per sampled write); the pool grows if
 * a server holds more. */
static void setup_read_back(void) {
    run.reading_back = run.config->workload == WORKLOAD_WRITE && run.config->verify;
    run.read_back_rule = (read_back_rule){run.config->nodes, run.node_count, run.npr,
                                          run.config->sessions};
    read_back_pool_init(&run.read_backs, (uint32_t)(run.config->in_flight / 64 + 4));
    UA_ReadRequest_init(&run.read_back_request);
    run.read_back_request.maxAge = 0; /* SPEC §3: every Read asks maxAge 0 and Source timestamps */
    run.read_back_request.timestampsToReturn = UA_TIMESTAMPSTORETURN_SOURCE;
    run.read_back_request.nodesToReadSize = run.npr;
}

/* Open loop: the first request of session s scheduled at or after time t. */
static uint64_t first_at_or_after(const session_load *s, int64_t t) {
    double estimate = ((double)(t - run.load_start) / run.ns_per_request - s->index) /
                      run.config->sessions;
    uint64_t k = estimate > 1 ? (uint64_t)estimate - 1 : 0;
    while(scheduled_time(s, k) < t)
        k++;
    return k;
}

/* Measured requests still without an answer, plus (open loop) scheduled ones not sent. */
static uint64_t unfinished_measured(void) {
    uint64_t pending = 0;
    for(int s = 0; s < run.config->sessions; s++) {
        session_load *sl = &run.sessions[s];
        for(int i = 0; i < run.config->in_flight; i++)
            pending += sl->slots[i].mark.busy && sl->slots[i].measured;
        if(run.config->open_loop) {
            uint64_t first = first_at_or_after(sl, run.measure_start);
            uint64_t end = first_at_or_after(sl, run.measure_end);
            if(first < sl->next_k)
                first = sl->next_k;
            pending += end > first ? end - first : 0;
        }
    }
    return pending;
}

static int all_idle(void) {
    if(read_back_pool_in_flight(&run.read_backs) > 0)
        return 0;
    for(int s = 0; s < run.config->sessions; s++) {
        session_load *sl = &run.sessions[s];
        if(sl->free_count + sl->thinking.count + sl->retrying.count != run.config->in_flight)
            return 0;
        if(run.config->open_loop && scheduled_time(sl, sl->next_k) < run.measure_end)
            return 0;
    }
    return 1;
}

/* Until when the EventLoop may block: the next scheduled send (open loop), the end of the
 * next think time or retry wait (closed loop), or the end of the phase; loop_wait_until caps
 * it at 100 ms. A response still wakes it at once. */
static int64_t wake_at(int64_t now) {
    int64_t until = run.measure_end > now ? run.measure_end : now + 100000000;
    for(int s = 0; s < run.config->sessions; s++) {
        session_load *sl = &run.sessions[s];
        if(sl->starting)
            return now;
        if(run.config->open_loop && sl->free_count > 0) {
            /* Nothing scheduled at or after measure_end is sent (see wait_next). */
            int64_t next = scheduled_time(sl, sl->next_k);
            if(next < run.measure_end && next < until)
                until = next;
        }
        until = wait_next(&sl->retrying, wait_next(&sl->thinking, until));
    }
    return until;
}

uint64_t request_workload_run(const client_config *config, session_set *set, recorder *rec) {
    memset(&run, 0, sizeof(run));
    run.config = config;
    run.rec = rec;
    run.node_count = config->nodes_count;
    run.npr = (size_t)config->nodes_per_request;
    run.ns_per_request = config->open_loop ? 1e9 / config->rate : 0;
    run.think_ns = config->open_loop ? 0 : (int64_t)(config->think_ms * 1e6);
    build_ring();
    tick_check_init(&run.ticks, run.ring_classes, run.node_count, config->sessions);
    setup_read_back();
    run.sessions = calloc((size_t)config->sessions, sizeof(session_load));
    for(int s = 0; s < config->sessions; s++)
        setup_session(&run.sessions[s], s, set);

    int64_t mono0 = mono_ns(), wall0 = wall_ns();
    run.load_start = mono0;
    run.measure_start = mono0 + (int64_t)(config->warmup_s * 1e9);
    run.measure_end = run.measure_start + (int64_t)(config->duration_s * 1e9);
    rec->start_ns = wall0 + (run.measure_start - mono0);
    rec->end_ns = wall0 + (run.measure_end - mono0);
    timeline_begin(&rec->timeline, mono0, run.measure_end - mono0, wall0 - mono0);
    if(config->record_latencies)
        recorder_list_latencies(rec, mono0); /* send instants after timeline.start_ns */
    int64_t drain_end = run.measure_end + DRAIN_NS;

    loop_waiter waiter;
    loop_waiter_init(&waiter, set->loop);
    for(;;) {
        int64_t now = mono_ns();
        if(now >= run.measure_end && (all_idle() || now >= drain_end))
            break;
        for(int s = 0; s < config->sessions; s++) {
            session_load *sl = &run.sessions[s];
            if(sl->starting || (config->open_loop && sl->free_count > 0) ||
               sl->thinking.count > 0 || sl->retrying.count > 0)
                pump(sl, now);
        }
        loop_wait_until(&waiter, wake_at(mono_ns()));
    }

    /* Whatever the drain did not bring back never completed: failed. */
    uint64_t lost = unfinished_measured();
    for(uint64_t i = 0; i < lost; i++)
        recorder_operation(rec, 0, 0, 0, 0, "no response within 5 s after the measured phase");
    read_backs_unanswered();
    run.finished = 1;
    rec->ticks_advanced = tick_check_advanced(&run.ticks);
    return run.accepted;
}
