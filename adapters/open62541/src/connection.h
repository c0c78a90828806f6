/* SPEC §3 "Connection loss" and §6 `connection`: each session's losses and restorations as
 * the SDK's state callback reports them (session.c), the first CONNECTION_EVENTS of them
 * listed. A session already lost is not lost again; one that is up is not restored.
 * The state callback says nothing while a path drops every packet (the TCP connection stays
 * up): then the loss is the first request failing with a connection status (request
 * workloads) or the SDK's subscription inactivity callback (subscribe), and the restoration
 * the first success after it, unless the state callback reports one first. */
#ifndef UABENCH_CONNECTION_H
#define UABENCH_CONNECTION_H

#include <open62541/types.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define CONNECTION_EVENTS 100

/* SPEC §6 subscriptions of a restored event of `subscribe` (NULL elsewhere). */
extern const char *const SUBSCRIPTIONS_TRANSFERRED, *const SUBSCRIPTIONS_LOST;

typedef struct {
    int64_t t_ns;               /* Unix wall clock */
    int session;
    bool lost;                  /* else restored */
    const char *subscriptions;  /* NULL: null */
} connection_event;

typedef struct {
    int sessions;
    bool *down;
    connection_event events[CONNECTION_EVENTS];
    int count;
    uint64_t lost, restored, truncated;
} connection_log;

void connection_init(connection_log *log, int sessions);

bool connection_is_down(const connection_log *log, int session);

/* True if it was news: the session was up and is now lost. */
bool connection_mark_lost(connection_log *log, int session, int64_t t_ns);

/* True if it was news: the session was lost and is up again. */
bool connection_mark_restored(connection_log *log, int session, int64_t t_ns,
                              const char *subscriptions);

/* SPEC §3: a status of a failed request that says the connection is lost. */
bool connection_status(UA_StatusCode status);

/* Writes "connection":{...} (no braces around it). */
void connection_json(FILE *out, const connection_log *log);

#endif
