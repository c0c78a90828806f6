/* Waiting for the next scheduled send of the open loop without busy-polling. */
#ifndef UABENCH_LOOP_WAIT_H
#define UABENCH_LOOP_WAIT_H

#include <open62541/plugin/eventloop.h>
#include <stdint.h>

typedef struct {
    UA_EventLoop *loop;
    int epoll_fd; /* the EventLoop's epoll instance, -1 if it cannot be found */
} loop_waiter;

/* Call once the EventLoop is started (its sessions are connected). */
void loop_waiter_init(loop_waiter *w, UA_EventLoop *loop);

/* Runs the EventLoop, blocking at most until `until` (mono_ns clock, capped at 100 ms)
 * and returning as soon as it has processed a network event or a timer. */
void loop_wait_until(loop_waiter *w, int64_t until);

#endif
