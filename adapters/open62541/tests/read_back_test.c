/* SPEC §3 W1 (writes read back under load) on values worked out by hand: read_back_judge
 * passes what a healthy server may hold when session 0 reads back a sampled write and fails,
 * with SPEC's example, what it may not; the pool of read-backs in flight grows without losing
 * one. Prints one line per failed case and "N passed, N failed"; exits 1 if any failed. */
#include "read_back.h"
#include "verdict.h"

/* Two sessions, two nodes per request, Write_0 listed twice (positions 0 and 3). */
static char *nodes[] = {"Write_0", "Write_1", "Write_2", "Write_0"};
static const read_back_rule rule = {nodes, 4, 2, 2};

/* Session 0's write 4863 was sampled while its writes from 4799 on were in flight. */
#define SAMPLED 4863
#define OLDEST 4799

/* The value read back at config position `position`: `expected` NULL = passes, else the
 * reason it must give. */
static void judge(const char *label, size_t position, const UA_DataValue *dv,
                  const char *expected) {
    char reason[256] = "";
    bool ok = read_back_judge(&rule, position, dv, OLDEST, SAMPLED, reason, sizeof(reason));
    verdict(label, ok, reason, expected);
}

static UA_DataValue value_of(void *data, int type) {
    UA_DataValue dv;
    UA_DataValue_init(&dv);
    dv.hasValue = true;
    UA_Variant_setScalar(&dv.value, data, &UA_TYPES[type]);
    return dv;
}

static void judge_double(const char *label, size_t position, double v, const char *expected) {
    UA_DataValue dv = value_of(&v, UA_TYPES_DOUBLE);
    judge(label, position, &dv, expected);
}

/* The Double session `s`'s request k wrote to its node j (SPEC §3 Write). */
static double written(int s, double k, int j) {
    return s * 1e9 + k * 2 + j;
}

static void pool_cases(void) {
    read_back_pool p;
    read_back_pool_init(&p, 2);
    uint32_t a = read_back_pool_take(&p, 63, 60);
    uint32_t b = read_back_pool_take(&p, 127, 120);
    uint32_t c = read_back_pool_take(&p, 191, 191); /* beyond the capacity: grows */
    bool kept = a != b && b != c && a != c && p.items[a].sampled == 63 &&
                p.items[b].oldest == 120 && p.items[c].sampled == 191 && p.items[a].busy &&
                read_back_pool_in_flight(&p) == 3;
    read_back_pool_give(&p, b);
    kept = kept && !p.items[b].busy && read_back_pool_in_flight(&p) == 2;
    uint32_t d = read_back_pool_take(&p, 255, 250);
    kept = kept && d == b && p.items[d].sampled == 255 && read_back_pool_in_flight(&p) == 3;
    verdict("pool: three in flight over a capacity of two, one given back and taken again",
          kept, "lost or mixed up a read-back", NULL);
}

int main(void) {
    /* Write 4863 itself starts at position (4863·2) mod 4 = 2: Write_2, Write_0 (3). */
    judge_double("the sampled write's own value", 2, written(0, SAMPLED, 0), NULL);
    judge_double("a later write of session 0", 2, written(0, SAMPLED + 2, 0), NULL);
    judge_double("session 0's write C, still in flight when the sample was sent", 2,
                 written(0, OLDEST, 0), NULL);
    judge_double("session 0's write before C", 2, written(0, OLDEST - 2, 0),
                 "read-back of Write_2: session 0's write 4797, but its writes before 4799 "
                 "had completed when write 4863 was sent");
    judge_double("session 0's first write", 0, written(0, 0, 0),
                 "read-back of Write_0: session 0's write 0, but its writes before 4799 had "
                 "completed when write 4863 was sent");
    judge_double("another session's old write: its order is the server's", 2,
                 written(1, 1, 0), NULL);
    judge_double("another session's write ahead of session 0's", 1, written(1, 9000, 1), NULL);
    /* Write_0 at positions 0 and 3: a write to either is a write to the node */
    judge_double("a node listed twice, written at its other position", 3, written(0, 4864, 0),
                 NULL);
    judge_double("a node listed twice, written at this position", 0, written(0, 4865, 1),
                 NULL);
    judge_double("a value written to another node", 1, written(0, 4864, 0),
                 "read-back of Write_1: 9728, which no write of this run put there");
    judge_double("not one of the writes' integers", 2, 17.5,
                 "read-back of Write_2: 17.5, which no write of this run put there");
    judge_double("the verification pattern (negative)", 2, -100002.25,
                 "read-back of Write_2: -100002.25, which no write of this run put there");
    /* beyond the last session's 1e9s (m < 1e9): no write of this run, whatever node m names */
    judge_double("beyond the sessions' writes, another node", 0, written(2, 0, 1) + 4e9,
                 "read-back of Write_0: 6000000001, which no write of this run put there");
    judge_double("beyond the sessions' writes, this node", 1, written(2, 0, 1) + 4e9,
                 "read-back of Write_1: 6000000001, which no write of this run put there");

    UA_DataValue dv;
    UA_DataValue_init(&dv);
    dv.hasStatus = true;
    dv.status = UA_STATUSCODE_BADNODEIDUNKNOWN;
    judge("a Bad status", 1, &dv, "read-back of Write_1: BadNodeIdUnknown");
    UA_Float f = 17.5f;
    dv = value_of(&f, UA_TYPES_FLOAT);
    judge("a Float, not a Double", 1, &dv,
          "read-back of Write_1: Float 17.5, which no write of this run put there");
    UA_String text = UA_STRING("17.5");
    dv = value_of(&text, UA_TYPES_STRING);
    judge("a String", 1, &dv,
          "read-back of Write_1: String \"17.5\", which no write of this run put there");
    UA_Double pair[2] = {0, 1};
    UA_DataValue_init(&dv);
    dv.hasValue = true;
    UA_Variant_setArray(&dv.value, pair, 2, &UA_TYPES[UA_TYPES_DOUBLE]);
    judge("an array of Doubles", 1, &dv,
          "read-back of Write_1: Double array, which no write of this run put there");
    UA_DataValue_init(&dv);
    judge("no value", 1, &dv,
          "read-back of Write_1: no value, which no write of this run put there");

    /* the sampled writes: every 64th of session 0 */
    verdict("write 63 is sampled, 62 and 64 are not",
          read_back_sampled(63) && !read_back_sampled(62) && !read_back_sampled(64) &&
              read_back_sampled(127),
          "wrong sample", NULL);
    pool_cases();

    return verdicts_summary();
}
