/* What the PubSub roles (SPEC §8) share: the UA_Server that hosts open62541's PubSub, the
 * PubSubConnection config of a `pubsub_config`, and SIGTERM/SIGINT handling. */
#ifndef UABENCH_PUBSUB_COMMON_H
#define UABENCH_PUBSUB_COMMON_H

#include "config.h"

#include <open62541/server.h>
#include <open62541/server_pubsub.h>
#include <signal.h>

#define UDP_UADP_PROFILE "http://opcfoundation.org/UA-Profile/Transport/pubsub-udp-uadp"

extern volatile sig_atomic_t pubsub_stop_requested;

/* SIGTERM and SIGINT set pubsub_stop_requested (and interrupt the EventLoop's wait). */
void pubsub_handle_signals(void);

/* A server for PubSub only: delta frames off, logs on stderr. open62541 runs PubSub inside
 * a UA_Server, whose startup insists on one TCP listen socket: it gets a free port on
 * 127.0.0.1 and serves nothing there. */
UA_Server *pubsub_server_new(void);

/* The UDP-UADP PubSubConnection of the config; `url` must outlive the call. */
void pubsub_connection_config(const pubsub_config *config, UA_NetworkAddressUrlDataType *url,
                              UA_PubSubConnectionConfig *out);

#endif
