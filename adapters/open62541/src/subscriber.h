#ifndef UABENCH_SUBSCRIBER_H
#define UABENCH_SUBSCRIBER_H

/* `run subscriber --config FILE`: receives, verifies and measures the publisher's
 * NetworkMessages for warmup_s + duration_s, prints the result (SPEC §8). */
int subscriber_main(const char *config_path);

#endif
