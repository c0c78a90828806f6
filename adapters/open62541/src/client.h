#ifndef UABENCH_CLIENT_H
#define UABENCH_CLIENT_H

/* `run client --config FILE`: runs one workload and prints the result record. */
int client_main(const char *config_path);

#endif
