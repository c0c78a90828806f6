#ifndef UABENCH_PUBLISHER_H
#define UABENCH_PUBLISHER_H

/* `run publisher --config FILE`: publishes Signal_0 … Signal_{N-1} over UADP/UDP until
 * SIGTERM/SIGINT (SPEC §8). */
int publisher_main(const char *config_path);

#endif
