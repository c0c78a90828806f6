/* open62541 logger that writes to stderr: stdout belongs to the JSON protocol. */
#ifndef UABENCH_LOG_H
#define UABENCH_LOG_H

#include <open62541/types.h>
#include <open62541/plugin/log.h>

/* A process-wide logger at WARNING and above; never freed by the SDK (clear is NULL). */
UA_Logger *stderr_logger(void);

/* Raises the threshold to ERROR while setting up or tearing down, where the SDK warns
 * about expected things once per session (e.g. ECC policies an RSA certificate cannot
 * serve); returns the previous threshold for log_restore. */
UA_LogLevel log_quiet(void);
void log_restore(UA_LogLevel level);

#endif
