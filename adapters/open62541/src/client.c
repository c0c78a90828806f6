#include "client.h"

#include "config.h"
#include "json_out.h"
#include "recorder.h"
#include "request_workload.h"
#include "session.h"
#include "subscribe.h"
#include "version.h"
#include "write_check.h"

#include <stdlib.h>

static void emit_result(const client_config *config, const recorder *rec,
                        const subscription_stats *stats) {
    char *line = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&line, &length);
    fprintf(out, "{\"event\":\"result\",\"sdk\":\"%s\",\"version\":\"%s\",\"role\":\"client\","
                 "\"workload\":\"%s\",\"config\":",
            SDK_ID, sdk_version(), WORKLOAD_NAMES[config->workload]);
    client_config_json(out, config);
    fputc(',', out);
    recorder_json(out, rec);
    if(stats) {
        fputc(',', out);
        subscription_stats_json(out, stats, rec);
    }
    fputc('}', out);
    fclose(out);
    emit_line(line, length);
    free(line);
}

int client_main(const char *config_path) {
    client_config config;
    client_config_load(config_path, &config);
    recorder *rec = calloc(1, sizeof(recorder));
    timeline_init(&rec->timeline, config.timeline_ms);
    connection_init(&rec->connection, config.sessions);
    session_set sessions;
    sessions_open(&config, &sessions, &rec->connection);
    for(int s = 0; s < sessions.count; s++)
        recorder_session_ready(rec, sessions.setup_ns[s]);
    subscription_stats *stats = NULL;
    if(config.workload == WORKLOAD_SUBSCRIBE) {
        stats = calloc(1, sizeof(subscription_stats));
        subscribe_run(&config, &sessions, rec, stats);
        sessions_close(&sessions);
        emit_result(&config, rec, stats);
        return 0;
    }
    uint64_t accepted = request_workload_run(&config, &sessions, rec);
    /* The SDK refused every request with the session never lost: it cannot send them. */
    if(accepted == 0 && rec->connection.lost == 0 && rec->error_examples.count > 0)
        fail("runtime", EXIT_RUNTIME, "no request could be sent: %s",
             rec->error_examples.items[0]);
    if(config.workload == WORKLOAD_WRITE && config.verify)
        write_check_run(&config, &sessions, rec);
    sessions_close(&sessions);
    emit_result(&config, rec, NULL);
    return 0;
}
