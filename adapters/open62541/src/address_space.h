/* The server side of SPEC §4: the nodes of urn:uabench:model and the update loop. */
#ifndef UABENCH_ADDRESS_SPACE_H
#define UABENCH_ADDRESS_SPACE_H

#include "config.h"

#include <open62541/server.h>

/* Adds the namespace, the `uabench` object and all its variables at tick 0. */
UA_StatusCode address_space_build(UA_Server *server, const server_config *config);

/* Starts the update loop (no-op if update_interval_ms is 0). */
UA_StatusCode address_space_start_updates(UA_Server *server, const server_config *config);

#endif
