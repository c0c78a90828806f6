/* The stdout protocol of SPEC §2: one JSON object per line, flushed at once. */
#ifndef UABENCH_JSON_OUT_H
#define UABENCH_JSON_OUT_H

#include <stdio.h>

enum { EXIT_RUNTIME = 1, EXIT_CONFIG = 2, EXIT_NOT_SUPPORTED = 3 };

/* Writes `text` as a JSON string literal (with quotes). */
void json_write_string(FILE *out, const char *text);

/* Writes a finite double in its shortest round-trip form ("1", "0.5", "1e-09"). */
void json_number(FILE *out, double value);

/* Prints one complete line to stdout and flushes. */
void emit_line(const char *line, size_t length);

/* Prints {"event":"error",...}, mirrors it on stderr and exits with `code`. */
_Noreturn void fail(const char *kind, int code, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

#endif
