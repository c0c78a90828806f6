/* The adapter is written for open62541 1.5 (sdk.toml `version`) and also builds against 1.4
 * (sdk.toml [versions."1.4.17"]; adapters/SPEC.md §1, versions side by side). Where 1.5 only
 * added a shorthand, the 1.4 spelling is given here; where the API differs in substance, the
 * file that uses it has its own `#if UA_OPEN62541_VER_MINOR < 5` (the SDK's version macros,
 * from open62541/config.h) saying why: server.c (the trust list: 1.4 has no certificate
 * groups), log.c (1.4's messages are printf formats), pubsub_common.c (the PublisherId's type),
 * publisher.c (enabling the WriterGroup), subscriber.c and main.c (1.4 has no subscriber). */
#ifndef UABENCH_SDK_COMPAT_H
#define UABENCH_SDK_COMPAT_H

#include <open62541/types.h>

/* Every file with such a guard includes this: an undefined macro would be 0 in `#if`, 1.4's path */
#ifndef UA_OPEN62541_VER_MINOR
#error "open62541/config.h defines no UA_OPEN62541_VER_MINOR"
#endif

#if UA_OPEN62541_VER_MINOR < 5
/* UA_NS0ID(NAME), namespace 0's NodeId UA_NS0ID_NAME, is 1.5's shorthand (types.h) */
#define UA_NS0ID(ID) UA_NODEID_NUMERIC(0, UA_NS0ID_##ID)
#endif

#endif
