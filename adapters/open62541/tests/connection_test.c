/* SPEC §3 Connection loss and subscribe's tick step, on hand-made sequences: the connection
 * log of connection.c (once per loss, alternating, the first 100 events listed, the JSON of
 * §6) and tick_step of tick_check.h (gaps, duplicates, older ticks). Prints one line per
 * failed case and "N passed, N failed"; exits 1 if any failed. */
#include "connection.h"
#include "tick_check.h"
#include "verdict.h"

#include <stdlib.h>

static void check(const char *label, bool ok) {
    verdict(label, ok, "wrong", NULL);
}

static void losses_and_restorations(void) {
    connection_log log;
    connection_init(&log, 2);
    check("a session up is not restored", !connection_mark_restored(&log, 0, 1, NULL));
    check("first loss", connection_mark_lost(&log, 0, 10));
    check("a session lost is not lost again", !connection_mark_lost(&log, 0, 11));
    check("the other session is its own", connection_mark_lost(&log, 1, 12));
    check("restored", connection_mark_restored(&log, 0, 20, SUBSCRIPTIONS_LOST));
    check("is_down", !connection_is_down(&log, 0) && connection_is_down(&log, 1));
    check("counts", log.lost == 2 && log.restored == 1 && log.count == 3 && !log.truncated);

    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    connection_json(out, &log);
    fclose(out);
    const char *want =
        "\"connection\":{\"lost\":2,\"restored\":1,\"events\":["
        "{\"t_ns\":10,\"session\":0,\"state\":\"lost\",\"subscriptions\":null},"
        "{\"t_ns\":12,\"session\":1,\"state\":\"lost\",\"subscriptions\":null},"
        "{\"t_ns\":20,\"session\":0,\"state\":\"restored\",\"subscriptions\":\"lost\"}],"
        "\"truncated\":0}";
    verdict("json", strcmp(text, want) == 0, text, NULL);
    free(text);
}

static void truncation(void) {
    connection_log log;
    connection_init(&log, 1);
    for(int i = 0; i < 60; i++) {
        connection_mark_lost(&log, 0, 2 * i);
        connection_mark_restored(&log, 0, 2 * i + 1, NULL);
    }
    check("the first 100 events listed, the rest counted",
          log.count == CONNECTION_EVENTS && log.truncated == 20 && log.lost == 60 &&
              log.restored == 60 && log.events[99].t_ns == 99);
}

static void tick_steps(void) {
    struct {
        const char *label;
        uint32_t last, next;
        uint64_t gaps, duplicates;
    } cases[] = {
        {"next tick", 5, 6, 0, 0},
        {"three missed", 5, 9, 3, 0},
        {"the same tick again", 5, 5, 0, 1},
        {"wrapped forward", 16383, 1, 1, 0},
        {"a Tick beyond 16384 taken mod 16384", 16384 + 7, 16384 * 3 + 8, 0, 0},
        {"largest forward step", 0, 8191, 8190, 0},
        {"half way is older", 0, 8192, 0, 0},
        {"an older tick (restarted server)", 9000, 8000, 0, 0},
        {"far ahead after a restart is a forward step", 9000, 3, 7386, 0},
    };
    for(size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t gaps = 0, duplicates = 0;
        tick_step(cases[i].last, cases[i].next, &gaps, &duplicates);
        check(cases[i].label, gaps == cases[i].gaps && duplicates == cases[i].duplicates);
    }
}

int main(void) {
    losses_and_restorations();
    truncation();
    tick_steps();
    return verdicts_summary();
}
