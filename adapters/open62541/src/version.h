/* Identity of the SDK as linked into this binary. */
#ifndef UABENCH_VERSION_H
#define UABENCH_VERSION_H

#define SDK_ID "open62541"

/* "1.5.10": the version of the open62541 library this binary is statically linked with. */
const char *sdk_version(void);

#endif
