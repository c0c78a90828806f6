#include "json_out.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void json_write_string(FILE *out, const char *text) {
    fputc('"', out);
    for(const unsigned char *c = (const unsigned char *)text; *c; c++) {
        switch(*c) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\r': fputs("\\r", out); break;
        case '\t': fputs("\\t", out); break;
        default:
            if(*c < 0x20)
                fprintf(out, "\\u%04x", *c);
            else
                fputc(*c, out);
        }
    }
    fputc('"', out);
}

void json_number(FILE *out, double value) {
    char text[32];
    for(int precision = 1; precision <= 17; precision++) {
        snprintf(text, sizeof(text), "%.*g", precision, value);
        if(strtod(text, NULL) == value)
            break;
    }
    fputs(text, out);
}

void emit_line(const char *line, size_t length) {
    fwrite(line, 1, length, stdout);
    fputc('\n', stdout);
    fflush(stdout);
}

void fail(const char *kind, int code, const char *format, ...) {
    char message[1024];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof(message), format, args);
    va_end(args);

    char *line = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&line, &length);
    fputs("{\"event\":\"error\",\"kind\":", out);
    json_write_string(out, kind);
    fputs(",\"message\":", out);
    json_write_string(out, message);
    fputc('}', out);
    fclose(out);
    emit_line(line, length);
    free(line);
    fprintf(stderr, "%s: %s\n", kind, message);
    exit(code);
}
