/* The client's sessions: one UA_Client (SecureChannel + Session) per configured session,
 * all on one shared EventLoop so a single thread drives every connection with one epoll
 * and can block while nothing is due. */
#ifndef UABENCH_SESSION_H
#define UABENCH_SESSION_H

#include "config.h"
#include "connection.h"

#include <open62541/client.h>
#include <open62541/plugin/eventloop.h>
#include <stdint.h>

/* What the SDK's state callback of one session needs (the client's context). */
typedef struct {
    connection_log *connection;
    int index;
    bool subscribe;     /* the subscribe workload: a restored event says what of them */
    bool watching;      /* from the session's set-up until sessions_close */
    bool up;            /* as the state callback last saw it */
    int subscriptions;  /* the SDK's subscriptions of the session (subscribe.c counts them) */
} session_watch;

typedef struct {
    UA_EventLoop *loop;
    int count;
    UA_Client **clients;
    UA_UInt16 *namespace_index;  /* of urn:uabench:model, looked up per session */
    int64_t *setup_ns;           /* connect until the session is activated (SPEC §6) */
    session_watch *watch;
} session_set;

/* Connects every session; on failure prints the `connect` error and exits 1. From then on
 * each session's losses and restorations go into `connection` (SPEC §3 Connection loss). */
void sessions_open(const client_config *config, session_set *set, connection_log *connection);

/* Closes the sessions and the EventLoop. */
void sessions_close(session_set *set);

#endif
