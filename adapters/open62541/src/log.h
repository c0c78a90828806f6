/* open62541 logger that writes to stderr: stdout belongs to the JSON protocol. */
#ifndef UABENCH_LOG_H
#define UABENCH_LOG_H

#include <open62541/plugin/log.h>

/* A process-wide logger at WARNING and above; never freed by the SDK (clear is NULL). */
UA_Logger *stderr_logger(void);

#endif
