#ifndef UABENCH_SERVER_H
#define UABENCH_SERVER_H

/* `run server --config FILE`: serves the standard address space until SIGTERM/SIGINT. */
int server_main(const char *config_path);

#endif
