/* open62541's EventLoop blocks in epoll_wait, whose timeout is whole milliseconds (1.5:
 * eventloop_posix.c pollFDs; its own comment wants epoll_pwait2 for finer timeouts). An
 * open loop above 1000 requests/s has its next send less than 1 ms away, so asking the
 * EventLoop to wait either busy-polls (timeout 0: one core at 100 %) or oversleeps by up
 * to 1 ms (timeout 1: sends late, in bursts). The EventLoop's timers are no finer: they
 * end in the same epoll_wait.
 *
 * So a wait shorter than 1 ms happens here, in ppoll (nanosecond timeout) on the
 * EventLoop's epoll file descriptor: an epoll fd is readable when one of its sockets has
 * an event, so a response still wakes the client at once (no latency added) and the
 * EventLoop then processes it without blocking. Waits of 1 ms or more stay in the
 * EventLoop (its timers and sockets as usual); only the sub-millisecond rest comes here.
 *
 * The EventLoop does not expose its epoll fd, and its struct is private; the fd is the
 * process's only eventpoll instance (the client role runs one EventLoop for every session
 * and nothing else uses epoll), found once in /proc/self/fd. If there is not exactly one,
 * sub-millisecond waits fall back to the EventLoop's 1 ms: late sends, still no spinning. */
#define _GNU_SOURCE
#include "loop_wait.h"

#include "clock.h"

#include <dirent.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <string.h>
#include <unistd.h>

#define MS 1000000LL
#define MAX_WAIT_MS 100
#define TIMER_SLACK_NS 1000UL

static int find_epoll_fd(void) {
    DIR *dir = opendir("/proc/self/fd");
    if(!dir)
        return -1;
    int found = -1, count = 0, own = dirfd(dir);
    struct dirent *entry;
    while((entry = readdir(dir))) {
        char path[300], target[64];
        int fd = atoi(entry->d_name);
        if(entry->d_name[0] == '.' || fd == own)
            continue;
        snprintf(path, sizeof(path), "/proc/self/fd/%s", entry->d_name);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if(n <= 0)
            continue;
        target[n] = '\0';
        if(strcmp(target, "anon_inode:[eventpoll]") == 0) {
            found = fd;
            count++;
        }
    }
    closedir(dir);
    return count == 1 ? found : -1;
}

void loop_waiter_init(loop_waiter *w, UA_EventLoop *loop) {
    w->loop = loop;
    /* The kernel may defer a timed wake-up by the thread's timer slack (50 µs by default)
     * to batch it with others: that would be send lag of our own making. */
    prctl(PR_SET_TIMERSLACK, TIMER_SLACK_NS);
    w->epoll_fd = find_epoll_fd();
    if(w->epoll_fd < 0)
        fprintf(stderr, "uabench-open62541: the EventLoop's epoll fd not found: open-loop "
                        "sends wait in whole milliseconds\n");
}

void loop_wait_until(loop_waiter *w, int64_t until) {
    int64_t left = until - mono_ns();
    if(left >= MS) {
        w->loop->run(w->loop, left >= MAX_WAIT_MS * MS ? MAX_WAIT_MS : (UA_UInt32)(left / MS));
        return;
    }
    if(left > 0) {
        if(w->epoll_fd < 0) {
            w->loop->run(w->loop, 1);
            return;
        }
        struct pollfd events = {.fd = w->epoll_fd, .events = POLLIN};
        struct timespec timeout = {.tv_sec = 0, .tv_nsec = (long)left};
        ppoll(&events, 1, &timeout, NULL);
    }
    w->loop->run(w->loop, 0); /* what is ready now, without blocking */
}
