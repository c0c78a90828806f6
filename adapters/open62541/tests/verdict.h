/* The verdicts of the C unit tests (tick_check_test.c, read_back_test.c): each case passes
 * or fails with a reason, and must do what the test expects. Header-only, one per test. */
#ifndef UABENCH_TEST_VERDICT_H
#define UABENCH_TEST_VERDICT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int passed, failed;

/* `expected` NULL: the case must pass; else it must fail with exactly this reason. Prints a
 * line for a case that did not. */
static void verdict(const char *label, bool ok, const char *reason, const char *expected) {
    bool right = expected ? !ok && strcmp(reason, expected) == 0 : ok;
    if(right) {
        passed++;
        return;
    }
    failed++;
    printf("FAIL %s: %s (expected %s)\n", label, ok ? "passed" : reason,
           expected ? expected : "to pass");
}

/* "N passed, N failed" and the exit status: 1 if any failed. */
static int verdicts_summary(void) {
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}

#endif
