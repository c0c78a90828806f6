#include "log.h"

#include "sdk_compat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static UA_LogLevel threshold = UA_LOGLEVEL_WARNING;

UA_LogLevel log_quiet(void) {
    UA_LogLevel previous = threshold;
    threshold = UA_LOGLEVEL_ERROR;
    return previous;
}

void log_restore(UA_LogLevel level) {
    threshold = level;
}

static const char *level_name(UA_LogLevel level) {
    if(level >= UA_LOGLEVEL_FATAL) return "fatal";
    if(level >= UA_LOGLEVEL_ERROR) return "error";
    if(level >= UA_LOGLEVEL_WARNING) return "warning";
    if(level >= UA_LOGLEVEL_INFO) return "info";
    return "debug";
}

/* A message the same as the one before is counted, not printed: with its connection lost
 * the client refuses every request with the same error, a hundred a second per slot. */
static char last[512];
static size_t last_length;
static unsigned long repeats;

static void repeats_flush(void) {
    if(repeats)
        fprintf(stderr, "open62541: the message before came %lu more times\n", repeats);
    repeats = 0;
}

static void log_to_stderr(void *context, UA_LogLevel level, UA_LogCategory category,
                          const char *msg, va_list args) {
    (void)context;
    (void)category;
    if(level < threshold)
        return;
    char buffer[sizeof(last)];
    UA_String text = {sizeof(buffer), (UA_Byte *)buffer};
#if UA_OPEN62541_VER_MINOR < 5
    /* 1.4's messages are printf formats (its own stdout logger vprintf's them), and it has no
     * UA_String_vformat. */
    int written = vsnprintf(buffer, sizeof(buffer), msg, args);
    text.length = written < 0 ? 0 : (size_t)written < sizeof(buffer) ? (size_t)written
                                                                        : sizeof(buffer) - 1;
#else
    /* The SDK's messages use its own format specifiers (%S, %N), so format with it. */
    UA_String_vformat(&text, msg, args);
#endif
    if(text.length == last_length && memcmp(buffer, last, text.length) == 0) {
        repeats++;
        return;
    }
    static int registered;
    if(!registered)
        registered = atexit(repeats_flush) == 0;
    repeats_flush();
    memcpy(last, buffer, text.length);
    last_length = text.length;
    fprintf(stderr, "open62541 %s: %.*s\n", level_name(level), (int)text.length, buffer);
}

UA_Logger *stderr_logger(void) {
    static UA_Logger logger = {log_to_stderr, NULL, NULL};
    return &logger;
}
