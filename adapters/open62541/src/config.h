/* Config files of SPEC §3, validated like the Python contract package (uabench_contract):
 * any unknown key, wrong type or out-of-range value ends the process with exit 2 naming
 * the key. */
#ifndef UABENCH_CONFIG_H
#define UABENCH_CONFIG_H

/* SPEC §2: a config file larger than this, or nested deeper, is unreadable (exit 2). */
#define CONFIG_MAX_BYTES (16 * 1024 * 1024)
#define CONFIG_MAX_DEPTH 64

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef enum { POLICY_NONE, POLICY_BASIC256SHA256, POLICY_AES128_SHA256_RSAOAEP,
               POLICY_AES256_SHA256_RSAPSS, POLICY_COUNT } security_policy;
typedef enum { MODE_NONE, MODE_SIGN, MODE_SIGN_AND_ENCRYPT, MODE_COUNT } security_mode;
typedef enum { WORKLOAD_READ, WORKLOAD_WRITE, WORKLOAD_SUBSCRIBE, WORKLOAD_COUNT } workload_kind;

extern const char *const POLICY_NAMES[POLICY_COUNT];
extern const char *const MODE_NAMES[MODE_COUNT];
extern const char *const WORKLOAD_NAMES[WORKLOAD_COUNT];

typedef struct {
    security_policy policy;
    security_mode mode;
} endpoint_security;

typedef struct {
    char *host;
    int port;
    int signals;
    int update_interval_ms;
    int writes;
    endpoint_security *endpoints;
    size_t endpoints_count;
    char *certificate;      /* NULL if not given */
    char *private_key;      /* NULL if not given */
    char *application_uri;
    char **trusted_certificates;
    size_t trusted_count;
    char **nodesets;        /* NodeSet2 files to import before ready (SPEC §4), in order */
    size_t nodesets_count;
} server_config;

typedef struct {
    char *endpoint;
    workload_kind workload;
    endpoint_security security;
    char *certificate;
    char *private_key;
    char *application_uri;
    int sessions;
    double warmup_s;
    double duration_s;
    bool verify;
    int timeline_ms;        /* window of the result record's timeline */
    bool reconnect;         /* SPEC §3 Connection loss: the SDK's own reconnection, run on */
    int request_timeout_ms; /* SPEC §3: UA_ClientConfig.timeout; 0 = null, the SDK's 5000 ms */
    char **nodes;
    size_t nodes_count;
    /* read and write */
    int nodes_per_request;
    int in_flight;
    bool open_loop;         /* rate given (not null) */
    double rate;
    double think_ms;        /* closed loop: a slot's wait between a response and its next send */
    bool record_latencies;  /* the result record lists every measured request (SPEC §6) */
    /* subscribe */
    int subscriptions;
    double publishing_interval_ms;
    double sampling_interval_ms;
    int queue_size;
} client_config;

/* The PubSub roles of SPEC §8 (publisher and subscriber share the first keys). */
typedef struct {
    char *address;          /* opc.udp://HOST:PORT/ */
    char *interface;        /* IPv4 address of the local interface */
    int publisher_id;
    int writer_group_id;
    int dataset_writer_id;
    int signals;
    int fields_per_message;
    double publishing_interval_ms;
    /* subscriber */
    double warmup_s;
    double duration_s;
    bool verify;
    int timeline_ms;        /* window of the result record's timeline */
    /* derived */
    char *host;             /* HOST of the address */
    int port;               /* PORT of the address */
    int writers;            /* ceil(signals / fields_per_message) */
} pubsub_config;

/* SPEC §8 splitting: DataSetWriter k carries Signal_first ... Signal_(first + count - 1). */
void pubsub_writer_fields(const pubsub_config *config, int k, int *first, int *count);

void server_config_load(const char *path, server_config *config);
void client_config_load(const char *path, client_config *config);
void pubsub_config_load(const char *path, pubsub_config *config, bool subscriber);

/* The server config as run, defaults filled in (the contract's golden vectors compare it). */
void server_config_json(FILE *out, const server_config *config);

/* The config as run, defaults filled in, as one JSON object (key order of uabench_contract). */
void client_config_json(FILE *out, const client_config *config);

/* The PubSub config as run, defaults filled in (key order of uabench_contract). */
void pubsub_config_json(FILE *out, const pubsub_config *config, bool subscriber);

#endif
