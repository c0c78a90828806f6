/* Mapping of the config's security names to open62541, and certificate/key files. */
#ifndef UABENCH_SECURITY_H
#define UABENCH_SECURITY_H

#include "config.h"

#include <open62541/types.h>

UA_String policy_uri(security_policy policy);
UA_MessageSecurityMode message_security_mode(security_mode mode);

/* Reads a whole file (DER certificate or PEM key); false with errno set on failure. */
bool load_file(const char *path, UA_ByteString *out);

#endif
