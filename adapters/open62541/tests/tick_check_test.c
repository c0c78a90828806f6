/* The tick rules of SPEC §3 "Read verification" (R1–R4) on sequences of values worked out by
 * hand (R2: responses to requests sent before or after others arrived): each rule passes what it allows and fails, with its example, what it forbids.
 * Prints one line per failed case and "N passed, N failed"; exits 1 if any failed. */
#include "tick_check.h"
#include "verdict.h"

#define T0 ((UA_DateTime)134000000000000000LL) /* some instant of 2025, DateTime units */

enum { TICK_POS, SIGNAL3_POS, REAL_POS, POSITIONS };
static const char *names[POSITIONS] = {"Tick", "Signal_3", "Real"};
static node_class classes[POSITIONS];

/* A Good value without status, with a SourceTimestamp unless `stamp` is 0. */
static UA_DataValue value_of(void *data, int type, UA_DateTime stamp) {
    UA_DataValue dv;
    UA_DataValue_init(&dv);
    dv.hasValue = true;
    UA_Variant_setScalar(&dv.value, data, &UA_TYPES[type]);
    dv.hasSourceTimestamp = stamp != 0;
    dv.sourceTimestamp = stamp;
    return dv;
}

static UA_DataValue tick_value(UA_UInt32 *tick, UA_DateTime stamp) {
    return value_of(tick, UA_TYPES_UINT32, stamp);
}

static UA_DataValue signal_value_at(float *value, uint32_t tick, UA_DateTime stamp) {
    *value = signal_value(3, tick);
    return value_of(value, UA_TYPES_FLOAT, stamp);
}

/* Judges one value of session 0 in a response to a request sent with high-water tick `sent`
 * (no Tick in its response unless `ref_tick` >= 0) and checks the verdict: `expected` NULL =
 * passes, else the reason it must give. */
static void judge_sent(tick_check *c, const char *label, size_t position, const UA_DataValue *dv,
                       long long ref_tick, uint32_t sent, UA_DateTime received,
                       const char *expected) {
    response_tick ref = {ref_tick >= 0, (uint32_t)ref_tick};
    char reason[160] = "";
    bool ok = tick_check_value(c, 0, position, classes[position], names[position], dv, &ref,
                               sent, received, true, reason, sizeof(reason));
    verdict(label, ok, reason, expected);
}

/* A value of a response to a request sent now: what session 0 had received so far. */
static void judge(tick_check *c, const char *label, size_t position, const UA_DataValue *dv,
                  long long ref_tick, UA_DateTime received, const char *expected) {
    judge_sent(c, label, position, dv, ref_tick, tick_check_sent(c, 0), received, expected);
}

/* The same for Signal_3 at `tick`, with SourceTimestamp `stamp`, alone in its response. */
static void judge_signal(tick_check *c, const char *label, uint32_t tick, UA_DateTime stamp,
                         UA_DateTime received, const char *expected) {
    float f;
    UA_DataValue dv = signal_value_at(&f, tick, stamp);
    judge(c, label, SIGNAL3_POS, &dv, -1, received, expected);
}

static void expect_high(const tick_check *c, const char *label, uint32_t expected) {
    if(tick_check_sent(c, 0) == expected) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL %s: high-water tick %u, expected %u\n", label, tick_check_sent(c, 0), expected);
}

static void fresh(tick_check *c) {
    tick_check_init(c, classes, POSITIONS, 1);
}

int main(void) {
    for(int p = 0; p < POSITIONS; p++)
        classes[p] = model_classify(names[p]);
    tick_check c;
    UA_UInt32 t;
    float f;
    UA_DataValue dv;
    UA_DateTime now = T0 + 100 * UA_DATETIME_SEC;

    /* R1: the Signal's tick within one update of the response's Tick, across the wrap */
    fresh(&c);
    dv = signal_value_at(&f, 24, T0);
    judge(&c, "R1 Tick-1", SIGNAL3_POS, &dv, 25, now, NULL);
    dv = signal_value_at(&f, 26, T0);
    judge(&c, "R1 Tick+1", SIGNAL3_POS, &dv, 25, now, NULL);
    tick_check_free(&c);
    fresh(&c);
    dv = signal_value_at(&f, 17, T0);
    judge(&c, "R1 torn", SIGNAL3_POS, &dv, 25, now,
          "Signal_3: tick 17, but Tick 25 (mod 16384) in the same response");
    tick_check_free(&c);
    fresh(&c);
    dv = signal_value_at(&f, 16383, T0);
    judge(&c, "R1 across the wrap", SIGNAL3_POS, &dv, 16384, now, NULL);
    tick_check_free(&c);

    /* R2: a healthy server answering concurrent requests out of order passes: both were
     * sent before anything arrived, so the later answer may be older by any amount */
    fresh(&c);
    uint32_t before_both = tick_check_sent(&c, 0);
    dv = signal_value_at(&f, 40, T0 + 1);
    judge_sent(&c, "R2 the later request answered first", SIGNAL3_POS, &dv, -1, before_both,
               now, NULL);
    dv = signal_value_at(&f, 37, T0);
    judge_sent(&c, "R2 the earlier request answered last", SIGNAL3_POS, &dv, -1, before_both,
               now, NULL);
    expect_high(&c, "R2 an older answer does not lower the high-water tick", 40);
    uint32_t after_37 = tick_check_sent(&c, 0);
    judge_signal(&c, "R2 back 1 from what arrived before the send", 39, T0, now, NULL);
    judge_signal(&c, "R2 back 2 from what arrived before the send", 38, T0, now,
          "Signal_3: tick 38, but tick 40 had arrived before this request was sent");
    dv = signal_value_at(&f, 16380, T0); /* behind by 44 */
    judge_sent(&c, "R2 back 44", SIGNAL3_POS, &dv, -1, after_37, now,
               "Signal_3: tick 16380, but tick 40 had arrived before this request was sent");
    judge_signal(&c, "R2 forward", 41, T0 + 2, now, NULL);
    tick_check_free(&c);
    /* the high-water tick is the session's, over Tick and every Signal, and wraps */
    fresh(&c);
    t = 16384 + 41;
    dv = tick_value(&t, T0);
    judge(&c, "R2 Tick first", TICK_POS, &dv, -1, now, NULL);
    expect_high(&c, "R2 Tick mod 16384", 41);
    judge_signal(&c, "R2 a Signal one behind Tick", 40, T0, now, NULL);
    judge_signal(&c, "R2 a Signal two behind Tick", 39, T0, now,
          "Signal_3: tick 39, but tick 41 had arrived before this request was sent");
    t = 16384 + 39;
    dv = tick_value(&t, T0);
    judge(&c, "R2 Tick back 2", TICK_POS, &dv, -1, now,
          "Tick: tick 39, but tick 41 had arrived before this request was sent");
    tick_check_free(&c);
    fresh(&c);
    judge_signal(&c, "R2 before the wrap", 16383, T0, now, NULL);
    judge_signal(&c, "R2 across the wrap", 2, T0 + 1, now, NULL);
    expect_high(&c, "R2 the high-water tick wraps", 2);
    judge_signal(&c, "R2 back 4 across the wrap", 16382, T0, now,
          "Signal_3: tick 16382, but tick 2 had arrived before this request was sent");
    tick_check_free(&c);

    /* R3: forward steps count, a wrap is forward */
    fresh(&c);
    judge_signal(&c, "R3 before the wrap", 16380, T0, now, NULL);
    judge_signal(&c, "R3 across the wrap", 3, T0 + 1, now, NULL);
    if(tick_check_advanced(&c) == 7)
        passed++;
    else {
        failed++;
        printf("FAIL R3: ticks_advanced %llu, expected 7\n",
               (unsigned long long)tick_check_advanced(&c));
    }
    tick_check_free(&c);
    /* R4: a SourceTimestamp, not ahead by more than 1 s, not earlier for a later tick */
    fresh(&c);
    t = 40;
    dv = tick_value(&t, 0);
    judge(&c, "R4 none", TICK_POS, &dv, -1, now, "Tick: no SourceTimestamp");
    dv = tick_value(&t, now + UA_DATETIME_SEC);
    judge(&c, "R4 1 s ahead", TICK_POS, &dv, -1, now, NULL);
    t = 41;
    dv = tick_value(&t, now + 23 * UA_DATETIME_SEC / 10);
    judge(&c, "R4 ahead", TICK_POS, &dv, -1, now, "Tick: SourceTimestamp 2.3 s in the future");
    t = 42;
    dv = tick_value(&t, now);
    judge(&c, "R4 earlier", TICK_POS, &dv, -1, now,
          "Tick: tick 42 has an earlier SourceTimestamp than tick 41");
    t = 42;
    dv = tick_value(&t, now - UA_DATETIME_SEC);
    judge(&c, "R4 same tick, any time", TICK_POS, &dv, -1, now, NULL);
    tick_check_free(&c);

    /* the other kinds are not judged here */
    fresh(&c);
    dv = tick_value(&t, 0);
    judge(&c, "Real", REAL_POS, &dv, -1, now, NULL);
    tick_check_free(&c);

    return verdicts_summary();
}
