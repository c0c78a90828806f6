#include "connection.h"

#include <stdlib.h>

const char *const SUBSCRIPTIONS_TRANSFERRED = "transferred";
const char *const SUBSCRIPTIONS_LOST = "lost";

void connection_init(connection_log *log, int sessions) {
    log->sessions = sessions;
    log->down = calloc((size_t)sessions, sizeof(bool));
    log->count = 0;
    log->lost = log->restored = log->truncated = 0;
}

bool connection_is_down(const connection_log *log, int session) {
    return log->down[session];
}

static void add(connection_log *log, int64_t t_ns, int session, bool lost,
                const char *subscriptions) {
    if(log->count == CONNECTION_EVENTS) {
        log->truncated++;
        return;
    }
    log->events[log->count++] = (connection_event){t_ns, session, lost, subscriptions};
}

bool connection_mark_lost(connection_log *log, int session, int64_t t_ns) {
    if(log->down[session])
        return false;
    log->down[session] = true;
    log->lost++;
    add(log, t_ns, session, true, NULL);
    return true;
}

bool connection_mark_restored(connection_log *log, int session, int64_t t_ns,
                              const char *subscriptions) {
    if(!log->down[session])
        return false;
    log->down[session] = false;
    log->restored++;
    add(log, t_ns, session, false, subscriptions);
    return true;
}

bool connection_status(UA_StatusCode status) {
    switch(status) {
    case UA_STATUSCODE_BADCONNECTIONCLOSED:
    case UA_STATUSCODE_BADSECURECHANNELCLOSED:
    case UA_STATUSCODE_BADSECURECHANNELIDINVALID:
    case UA_STATUSCODE_BADSESSIONCLOSED:
    case UA_STATUSCODE_BADSESSIONIDINVALID:
    case UA_STATUSCODE_BADSESSIONNOTACTIVATED:
    case UA_STATUSCODE_BADTIMEOUT:
    case UA_STATUSCODE_BADREQUESTTIMEOUT:
    case UA_STATUSCODE_BADNOTCONNECTED:
    case UA_STATUSCODE_BADSERVERNOTCONNECTED:
    case UA_STATUSCODE_BADCOMMUNICATIONERROR:
    case UA_STATUSCODE_BADNOCOMMUNICATION:
    case UA_STATUSCODE_BADDISCONNECT:
    case UA_STATUSCODE_BADSERVERHALTED:
    case UA_STATUSCODE_BADCONNECTIONREJECTED:
        return true;
    default:
        return false;
    }
}

void connection_json(FILE *out, const connection_log *log) {
    fprintf(out, "\"connection\":{\"lost\":%llu,\"restored\":%llu,\"events\":[",
            (unsigned long long)log->lost, (unsigned long long)log->restored);
    for(int i = 0; i < log->count; i++) {
        const connection_event *e = &log->events[i];
        fprintf(out, "%s{\"t_ns\":%lld,\"session\":%d,\"state\":\"%s\",\"subscriptions\":",
                i ? "," : "", (long long)e->t_ns, e->session, e->lost ? "lost" : "restored");
        if(e->subscriptions)
            fprintf(out, "\"%s\"}", e->subscriptions);
        else
            fputs("null}", out);
    }
    fprintf(out, "],\"truncated\":%llu}", (unsigned long long)log->truncated);
}
