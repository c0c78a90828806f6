/* JSON comes from Jansson (Debian's libjansson-dev for the host build, the Debian source
 * package for the Bazel cross builds). It keeps integers apart from reals ("port": 4840.0
 * is not an integer, as in the Python contract), refuses text that is not UTF-8, and
 * keeps the last of duplicate keys, like Python's json. */
#include "config.h"

#include "json_out.h"

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

const char *const POLICY_NAMES[POLICY_COUNT] = {
    "None", "Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss"};
const char *const MODE_NAMES[MODE_COUNT] = {"None", "Sign", "SignAndEncrypt"};
const char *const WORKLOAD_NAMES[WORKLOAD_COUNT] = {"read", "write", "subscribe"};

#define config_error(...) fail("config", EXIT_CONFIG, __VA_ARGS__)

/* --- the parsed document ----------------------------------------------------------- */

/* Nesting depth of a parsed document: Jansson's own limit (2048) is far above the
 * contract's, and it has no option to lower it. Recursion is bounded by Jansson's limit. */
static int depth_of(const json_t *node) {
    int deepest = 0;
    size_t index;
    const char *key;
    const json_t *child;
    if(json_is_object(node)) {
        json_object_foreach((json_t *)node, key, child) {
            int d = depth_of(child);
            deepest = d > deepest ? d : deepest;
        }
    } else if(json_is_array(node)) {
        json_array_foreach(node, index, child) {
            int d = depth_of(child);
            deepest = d > deepest ? d : deepest;
        }
    } else {
        return 0;
    }
    return deepest + 1;
}

/* SPEC §2 "unreadable config": at most CONFIG_MAX_BYTES, UTF-8, JSON (Jansson refuses NaN,
 * \u0000 and unpaired surrogate escapes), nested at most CONFIG_MAX_DEPTH deep, an object. */
static json_t *document_load(const char *path) {
    FILE *file = fopen(path, "rb");
    if(!file)
        config_error("config: cannot read %s: %s", path, strerror(errno));
    char *text = malloc(CONFIG_MAX_BYTES + 1);
    if(!text)
        fail("runtime", EXIT_RUNTIME, "out of memory reading %s", path);
    size_t length = fread(text, 1, CONFIG_MAX_BYTES + 1, file);
    int read_error = ferror(file) ? errno : 0;
    fclose(file);
    if(read_error)
        config_error("config: cannot read %s: %s", path, strerror(read_error));
    if(length > CONFIG_MAX_BYTES)
        config_error("config: %s is larger than %d bytes", path, CONFIG_MAX_BYTES);
    json_error_t error;
    json_t *root = json_loadb(text, length, JSON_DECODE_ANY, &error);
    free(text);
    if(!root && json_error_code(&error) == json_error_invalid_utf8)
        config_error("config: %s is not UTF-8 (byte %d)", path, error.position);
    if(!root && json_error_code(&error) == json_error_stack_overflow)
        config_error("config: %s is nested deeper than %d levels", path, CONFIG_MAX_DEPTH);
    if(!root)
        config_error("config: %s is not valid JSON: %s (near byte %d)", path, error.text,
                     error.position);
    if(depth_of(root) > CONFIG_MAX_DEPTH)
        config_error("config: %s is nested deeper than %d levels", path, CONFIG_MAX_DEPTH);
    if(!json_is_object(root))
        config_error("config: %s must hold a JSON object", path);
    return root;
}

/* --- one JSON object and its keys (contract `_fill`) --------------------------------- */

typedef struct {
    const json_t *node;
    const char *prefix;     /* "" or "security." */
} object;

/* The value of `name` in `obj`, or NULL if absent. */
static const json_t *find(const object *obj, const char *name) {
    return json_object_get(obj->node, name);
}

static void reject_unknown_keys(const object *obj, const char *const *known) {
    const char *key;
    const json_t *value;
    json_object_foreach((json_t *)obj->node, key, value) {
        bool ok = false;
        for(const char *const *k = known; *k && !ok; k++)
            ok = strcmp(*k, key) == 0;
        if(!ok)
            config_error("config: unknown key '%s%s'", obj->prefix, key);
    }
}

static void not_null(const object *obj, const json_t *value, const char *name) {
    if(json_is_null(value))
        config_error("config: key '%s%s' must not be null", obj->prefix, name);
}

/* The value as JSON text, for messages (the process exits right after: never freed). */
static const char *text_of(const json_t *value) {
    char *text = json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT | JSON_REAL_PRECISION(15));
    return text ? text : "?";
}

static int get_int(const object *obj, const char *name, int fallback, int low, int high,
                   bool required) {
    const json_t *value = find(obj, name);
    if(!value) {
        if(required)
            config_error("config: missing required key '%s%s'", obj->prefix, name);
        return fallback;
    }
    not_null(obj, value, name);
    if(!json_is_integer(value))
        config_error("config: key '%s%s' must be an integer, got %s", obj->prefix, name,
                     text_of(value));
    json_int_t number = json_integer_value(value);
    if(number < low || number > high)
        config_error("config: key '%s%s' = %s is out of range [%d, %d]", obj->prefix, name,
                     text_of(value), low, high);
    return (int)number;
}

/* Returns false if the key is null and nullable (then *out is untouched). */
static bool get_number(const object *obj, const char *name, double *out, double low,
                       double high, bool nullable) {
    const json_t *value = find(obj, name);
    if(!value)
        return true;
    if(nullable && json_is_null(value))
        return false;
    not_null(obj, value, name);
    double number = json_number_value(value);
    if(!json_is_number(value) || !isfinite(number))
        config_error("config: key '%s%s' must be a number, got %s", obj->prefix, name,
                     text_of(value));
    if(number < low || number > high)
        config_error("config: key '%s%s' = %s is out of range [%g, %g]", obj->prefix, name,
                     text_of(value), low, high);
    *out = number;
    return true;
}

static bool get_bool(const object *obj, const char *name, bool fallback) {
    const json_t *value = find(obj, name);
    if(!value)
        return fallback;
    not_null(obj, value, name);
    if(!json_is_boolean(value))
        config_error("config: key '%s%s' must be true or false", obj->prefix, name);
    return json_is_true(value);
}

/* A non-empty string; NULL if absent or (when nullable) null. */
static char *get_string(const object *obj, const char *name, const char *fallback,
                        bool required, bool nullable) {
    const json_t *value = find(obj, name);
    if(!value) {
        if(required)
            config_error("config: missing required key '%s%s'", obj->prefix, name);
        return fallback ? strdup(fallback) : NULL;
    }
    if(nullable && json_is_null(value))
        return NULL;
    not_null(obj, value, name);
    if(!json_is_string(value) || !*json_string_value(value))
        config_error("config: key '%s%s' must be a non-empty string", obj->prefix, name);
    return strdup(json_string_value(value));
}

static int get_choice(const object *obj, const char *name, const char *const *choices,
                      int count, int fallback, bool required) {
    char *value = get_string(obj, name, NULL, required, false);
    if(!value)
        return fallback;
    for(int i = 0; i < count; i++) {
        if(strcmp(value, choices[i]) == 0) {
            free(value);
            return i;
        }
    }
    config_error("config: key '%s%s' must be one of %s%s%s%s%s, got '%s'", obj->prefix, name,
                 choices[0], count > 1 ? ", " : "", count > 1 ? choices[1] : "",
                 count > 2 ? ", " : "", count > 2 ? choices[2] : "", value);
}

static char **get_strings(const object *obj, const char *name, size_t *count, bool required,
                          bool non_empty) {
    *count = 0;
    const json_t *list = find(obj, name);
    if(!list) {
        if(required)
            config_error("config: missing required key '%s%s'", obj->prefix, name);
        return NULL;
    }
    not_null(obj, list, name);
    if(!json_is_array(list))
        config_error("config: key '%s%s' must be a list of strings", obj->prefix, name);
    size_t size = json_array_size(list), i;
    char **out = calloc(size + 1, sizeof(char *));
    const json_t *item;
    json_array_foreach(list, i, item) {
        if(!json_is_string(item) || !*json_string_value(item))
            config_error("config: key '%s%s' must be a list of strings", obj->prefix, name);
        out[i] = strdup(json_string_value(item));
    }
    if(non_empty && size == 0)
        config_error("config: key '%s%s' must not be empty", obj->prefix, name);
    *count = size;
    return out;
}

/* The object under `name`, or false if absent or null. */
static bool get_object(const object *obj, const char *name, const char *prefix,
                       object *out) {
    const json_t *value = find(obj, name);
    if(!value)
        return false;
    not_null(obj, value, name);
    if(!json_is_object(value))
        config_error("config: key '%s%s' must be an object", obj->prefix, name);
    *out = (object){value, prefix};
    return true;
}

static void check_policy_mode(endpoint_security security, const char *where) {
    if((security.policy == POLICY_NONE) != (security.mode == MODE_NONE))
        config_error("config: key '%s' pairs policy %s with mode %s", where,
                     POLICY_NAMES[security.policy], MODE_NAMES[security.mode]);
}

static const char *const PAIR_KEYS[] = {"policy", "mode", NULL};

static endpoint_security get_pair(const object *obj, const char *where) {
    reject_unknown_keys(obj, PAIR_KEYS);
    endpoint_security pair;
    pair.policy = get_choice(obj, "policy", POLICY_NAMES, POLICY_COUNT, POLICY_NONE, false);
    pair.mode = get_choice(obj, "mode", MODE_NAMES, MODE_COUNT, MODE_NONE, false);
    check_policy_mode(pair, where);
    return pair;
}

static endpoint_security *get_endpoints(const object *obj, size_t *count) {
    static const endpoint_security none = {POLICY_NONE, MODE_NONE};
    *count = 1;
    const json_t *list = find(obj, "endpoints");
    if(!list) {
        endpoint_security *out = malloc(sizeof(*out));
        *out = none;
        return out;
    }
    not_null(obj, list, "endpoints");
    if(!json_is_array(list) || json_array_size(list) == 0)
        config_error("config: key 'security.endpoints' must be a non-empty list of "
                     "{policy, mode}");
    *count = json_array_size(list);
    endpoint_security *out = calloc(*count, sizeof(*out));
    const json_t *item;
    size_t i;
    json_array_foreach(list, i, item) {
        char where[64], prefix[80];
        snprintf(where, sizeof(where), "security.endpoints[%zu]", i);
        snprintf(prefix, sizeof(prefix), "%s.", where);
        if(!json_is_object(item))
            config_error("config: key '%s' must be an object with policy and mode", where);
        object entry = {item, prefix};
        out[i] = get_pair(&entry, where);
    }
    return out;
}

/* --- server -------------------------------------------------------------------------- */

static const char *const SERVER_KEYS[] = {"host", "port", "signals", "update_interval_ms",
                                          "writes", "security", "nodesets", NULL};
static const char *const SERVER_SECURITY_KEYS[] = {
    "endpoints", "certificate", "private_key", "application_uri", "trusted_certificates",
    NULL};

void server_config_load(const char *path, server_config *config) {
    json_t *doc = document_load(path);
    object root = {doc, ""};
    reject_unknown_keys(&root, SERVER_KEYS);
    config->host = get_string(&root, "host", "127.0.0.1", false, false);
    config->port = get_int(&root, "port", 0, 1, 65535, true);
    config->signals = get_int(&root, "signals", 1000, 0, 100000, false);
    config->update_interval_ms = get_int(&root, "update_interval_ms", 100, 0, 60000, false);
    config->writes = get_int(&root, "writes", 100, 0, 100000, false);
    config->nodesets = get_strings(&root, "nodesets", &config->nodesets_count, false, false);

    object security;
    bool has_security = get_object(&root, "security", "security.", &security);
    if(has_security)
        reject_unknown_keys(&security, SERVER_SECURITY_KEYS);
    if(has_security) {
        config->endpoints = get_endpoints(&security, &config->endpoints_count);
        config->certificate = get_string(&security, "certificate", NULL, false, true);
        config->private_key = get_string(&security, "private_key", NULL, false, true);
        config->application_uri =
            get_string(&security, "application_uri", "urn:uabench:server", false, false);
        config->trusted_certificates = get_strings(&security, "trusted_certificates",
                                                   &config->trusted_count, false, false);
    } else {
        config->endpoints = calloc(1, sizeof(endpoint_security));
        config->endpoints_count = 1;
        config->certificate = config->private_key = NULL;
        config->application_uri = strdup("urn:uabench:server");
        config->trusted_certificates = NULL;
        config->trusted_count = 0;
    }
    bool secure = false;
    for(size_t i = 0; i < config->endpoints_count; i++)
        secure |= config->endpoints[i].policy != POLICY_NONE;
    if(secure && !(config->certificate && config->private_key))
        config_error("config: key 'security.certificate' and 'security.private_key' are "
                     "required for a secure endpoint");
    json_decref(doc);
}

/* --- client -------------------------------------------------------------------------- */

static const char *const CLIENT_KEYS[] = {"endpoint", "workload", "security", "sessions",
                                          "warmup_s", "duration_s", "verify", "timeline_ms",
                                          "reconnect", "request_timeout_ms", "nodes", NULL};
static const char *const REQUEST_KEYS[] = {"nodes_per_request", "in_flight", "rate", "think_ms",
                                           "record_latencies", NULL};
static const char *const SUBSCRIBE_KEYS[] = {"subscriptions", "publishing_interval_ms",
                                             "sampling_interval_ms", "queue_size", NULL};
static const char *const CLIENT_SECURITY_KEYS[] = {"policy", "mode", "certificate",
                                                   "private_key", "application_uri", NULL};

/* The workload named in the raw file decides which keys are known (as in uabench_contract). */
static int raw_workload(const object *root) {
    const json_t *value = find(root, "workload");
    if(!json_is_string(value))
        return -1;
    for(int i = 0; i < WORKLOAD_COUNT; i++)
        if(strcmp(json_string_value(value), WORKLOAD_NAMES[i]) == 0)
            return i;
    return -1;
}

void client_config_load(const char *path, client_config *config) {
    json_t *doc = document_load(path);
    object root = {doc, ""};

    const char *known[32];
    size_t count = 0;
    for(const char *const *k = CLIENT_KEYS; *k; k++)
        known[count++] = *k;
    int workload = raw_workload(&root);
    const char *const *extra = workload == WORKLOAD_SUBSCRIBE ? SUBSCRIBE_KEYS
                               : workload >= 0                ? REQUEST_KEYS : NULL;
    for(; extra && *extra; extra++)
        known[count++] = *extra;
    known[count] = NULL;
    reject_unknown_keys(&root, known);

    config->endpoint = get_string(&root, "endpoint", NULL, true, false);
    config->workload = get_choice(&root, "workload", WORKLOAD_NAMES, WORKLOAD_COUNT, 0, true);
    config->sessions = get_int(&root, "sessions", 1, 1, 1000, false);
    config->warmup_s = 1;
    get_number(&root, "warmup_s", &config->warmup_s, 0, 3600, false);
    config->duration_s = 5;
    get_number(&root, "duration_s", &config->duration_s, 0.1, 86400, false);
    config->verify = get_bool(&root, "verify", true);
    config->timeline_ms = get_int(&root, "timeline_ms", 100, 10, 10000, false);
    config->reconnect = get_bool(&root, "reconnect", false);
    /* Nullable like `rate`: absent or null (0 here) leaves the SDK's own timeout. */
    config->request_timeout_ms = 0;
    if(!json_is_null(find(&root, "request_timeout_ms")))
        config->request_timeout_ms =
            get_int(&root, "request_timeout_ms", 0, 100, 3600000, false);
    config->nodes = get_strings(&root, "nodes", &config->nodes_count, true, true);

    config->nodes_per_request = get_int(&root, "nodes_per_request", 1, 1, 10000, false);
    config->in_flight = get_int(&root, "in_flight", 1, 1, 10000, false);
    config->rate = 0;
    config->open_loop = find(&root, "rate") != NULL &&
                        get_number(&root, "rate", &config->rate, 1e-9, 1e9, true);
    config->think_ms = 0;
    get_number(&root, "think_ms", &config->think_ms, 0, 60000, false);
    config->record_latencies = get_bool(&root, "record_latencies", false);
    config->subscriptions = get_int(&root, "subscriptions", 1, 1, 1000, false);
    config->publishing_interval_ms = 100;
    get_number(&root, "publishing_interval_ms", &config->publishing_interval_ms, 1, 60000,
               false);
    config->sampling_interval_ms = 100;
    get_number(&root, "sampling_interval_ms", &config->sampling_interval_ms, 0, 60000, false);
    config->queue_size = get_int(&root, "queue_size", 1, 1, 10000, false);

    if(strncmp(config->endpoint, "opc.tcp://", 10) != 0)
        config_error("config: key 'endpoint' must start with opc.tcp://, got '%s'",
                     config->endpoint);

    object security;
    bool has_security = get_object(&root, "security", "security.", &security);
    config->security = (endpoint_security){POLICY_NONE, MODE_NONE};
    config->certificate = config->private_key = NULL;
    config->application_uri = strdup("urn:uabench:client");
    if(has_security) {
        reject_unknown_keys(&security, CLIENT_SECURITY_KEYS);
        config->security.policy = get_choice(&security, "policy", POLICY_NAMES, POLICY_COUNT,
                                             POLICY_NONE, false);
        config->security.mode =
            get_choice(&security, "mode", MODE_NAMES, MODE_COUNT, MODE_NONE, false);
        config->certificate = get_string(&security, "certificate", NULL, false, true);
        config->private_key = get_string(&security, "private_key", NULL, false, true);
        free(config->application_uri);
        config->application_uri =
            get_string(&security, "application_uri", "urn:uabench:client", false, false);
    }
    check_policy_mode(config->security, "security");
    if(config->security.policy != POLICY_NONE && !(config->certificate && config->private_key))
        config_error("config: key 'security.certificate' and 'security.private_key' are "
                     "required for policy %s", POLICY_NAMES[config->security.policy]);
    /* A think time is the closed loop's: an open loop sends at scheduled times, so both at
     * once would leave one of them ignored (checked last, as uabench_contract does). */
    if(config->think_ms > 0 && config->open_loop)
        config_error("config: key 'think_ms' is the closed loop's wait between a response and "
                     "the next request; it cannot be %g with a rate (open loop)",
                     config->think_ms);
    json_decref(doc);
}

static void json_nullable_string(FILE *out, const char *text) {
    if(text)
        json_write_string(out, text);
    else
        fputs("null", out);
}

void server_config_json(FILE *out, const server_config *c) {
    fputs("{\"host\":", out);
    json_write_string(out, c->host);
    fprintf(out, ",\"port\":%d,\"signals\":%d,\"update_interval_ms\":%d,\"writes\":%d,"
                 "\"security\":{\"endpoints\":[",
            c->port, c->signals, c->update_interval_ms, c->writes);
    for(size_t i = 0; i < c->endpoints_count; i++)
        fprintf(out, "%s{\"policy\":\"%s\",\"mode\":\"%s\"}", i ? "," : "",
                POLICY_NAMES[c->endpoints[i].policy], MODE_NAMES[c->endpoints[i].mode]);
    fputs("],\"certificate\":", out);
    json_nullable_string(out, c->certificate);
    fputs(",\"private_key\":", out);
    json_nullable_string(out, c->private_key);
    fputs(",\"application_uri\":", out);
    json_write_string(out, c->application_uri);
    fputs(",\"trusted_certificates\":[", out);
    for(size_t i = 0; i < c->trusted_count; i++) {
        if(i)
            fputc(',', out);
        json_write_string(out, c->trusted_certificates[i]);
    }
    fputs("]},\"nodesets\":[", out);
    for(size_t i = 0; i < c->nodesets_count; i++) {
        if(i)
            fputc(',', out);
        json_write_string(out, c->nodesets[i]);
    }
    fputs("]}", out);
}

void client_config_json(FILE *out, const client_config *c) {
    fputs("{\"endpoint\":", out);
    json_write_string(out, c->endpoint);
    fprintf(out, ",\"workload\":\"%s\",\"security\":{\"policy\":\"%s\",\"mode\":\"%s\","
                 "\"certificate\":",
            WORKLOAD_NAMES[c->workload], POLICY_NAMES[c->security.policy],
            MODE_NAMES[c->security.mode]);
    json_nullable_string(out, c->certificate);
    fputs(",\"private_key\":", out);
    json_nullable_string(out, c->private_key);
    fputs(",\"application_uri\":", out);
    json_write_string(out, c->application_uri);
    fprintf(out, "},\"sessions\":%d,\"warmup_s\":", c->sessions);
    json_number(out, c->warmup_s);
    fputs(",\"duration_s\":", out);
    json_number(out, c->duration_s);
    fprintf(out, ",\"verify\":%s,\"timeline_ms\":%d,\"reconnect\":%s,\"request_timeout_ms\":",
            c->verify ? "true" : "false", c->timeline_ms, c->reconnect ? "true" : "false");
    if(c->request_timeout_ms)
        fprintf(out, "%d", c->request_timeout_ms);
    else
        fputs("null", out);
    fputs(",\"nodes\":[", out);
    for(size_t i = 0; i < c->nodes_count; i++) {
        if(i)
            fputc(',', out);
        json_write_string(out, c->nodes[i]);
    }
    fputc(']', out);
    if(c->workload == WORKLOAD_SUBSCRIBE) {
        fprintf(out, ",\"subscriptions\":%d,\"publishing_interval_ms\":", c->subscriptions);
        json_number(out, c->publishing_interval_ms);
        fputs(",\"sampling_interval_ms\":", out);
        json_number(out, c->sampling_interval_ms);
        fprintf(out, ",\"queue_size\":%d", c->queue_size);
    } else {
        fprintf(out, ",\"nodes_per_request\":%d,\"in_flight\":%d,\"rate\":",
                c->nodes_per_request, c->in_flight);
        if(c->open_loop)
            json_number(out, c->rate);
        else
            fputs("null", out);
        fputs(",\"think_ms\":", out);
        json_number(out, c->think_ms);
        fprintf(out, ",\"record_latencies\":%s", c->record_latencies ? "true" : "false");
    }
    fputc('}', out);
}

/* --- PubSub (SPEC §8) ---------------------------------------------------------------- */

#define MAX_FIELDS_PER_MESSAGE 12000
#define MAX_WRITERS 1000

static const char *const PUBSUB_KEYS[] = {
    "address", "interface", "publisher_id", "writer_group_id", "dataset_writer_id", "signals",
    "fields_per_message", "publishing_interval_ms", "warmup_s", "duration_s", "verify",
    "timeline_ms", NULL};
enum { PUBLISHER_KEY_COUNT = 8 };

/* opc.udp://HOST:PORT[/] into host and port; false if it is not that. */
static bool parse_udp_address(const char *address, char **host, int *port) {
    const char *prefix = "opc.udp://";
    if(strncmp(address, prefix, strlen(prefix)) != 0)
        return false;
    const char *rest = address + strlen(prefix);
    size_t length = strlen(rest);
    while(length > 0 && rest[length - 1] == '/')
        length--;
    const char *colon = NULL;
    for(size_t i = 0; i < length; i++) {
        if(rest[i] == '/')
            return false;
        if(rest[i] == ':')
            colon = rest + i;
    }
    if(!colon || colon == rest || (size_t)(colon - rest) + 1 >= length)
        return false;
    long value = 0;
    for(const char *p = colon + 1; p < rest + length; p++) {
        if(*p < '0' || *p > '9' || value > 65535)
            return false;
        value = value * 10 + (*p - '0');
    }
    if(value < 1 || value > 65535)
        return false;
    *host = strndup(rest, (size_t)(colon - rest));
    *port = (int)value;
    return true;
}

void pubsub_config_load(const char *path, pubsub_config *config, bool subscriber) {
    json_t *doc = document_load(path);
    object root = {doc, ""};
    const char *known[16];
    size_t count = 0;
    for(const char *const *k = PUBSUB_KEYS; *k; k++)
        if(subscriber || count < PUBLISHER_KEY_COUNT)
            known[count++] = *k;
    known[count] = NULL;
    reject_unknown_keys(&root, known);

    config->address = get_string(&root, "address", "opc.udp://239.255.0.1:4840/", false, false);
    config->interface = get_string(&root, "interface", "127.0.0.1", false, false);
    config->publisher_id = get_int(&root, "publisher_id", 1, 0, 65535, false);
    config->writer_group_id = get_int(&root, "writer_group_id", 1, 1, 65535, false);
    config->dataset_writer_id = get_int(&root, "dataset_writer_id", 1, 1, 65535, false);
    config->signals = get_int(&root, "signals", 100, 1, 1000000, false);
    config->fields_per_message =
        get_int(&root, "fields_per_message", 10000, 1, MAX_FIELDS_PER_MESSAGE, false);
    config->publishing_interval_ms = 100;
    get_number(&root, "publishing_interval_ms", &config->publishing_interval_ms, 1, 60000, false);
    config->warmup_s = 1;
    get_number(&root, "warmup_s", &config->warmup_s, 0, 3600, false);
    config->duration_s = 5;
    get_number(&root, "duration_s", &config->duration_s, 0.1, 86400, false);
    config->verify = get_bool(&root, "verify", true);
    config->timeline_ms = get_int(&root, "timeline_ms", 100, 10, 10000, false);

    if(!parse_udp_address(config->address, &config->host, &config->port))
        config_error("config: key 'address' must be opc.udp://HOST:PORT/ with a port in "
                     "[1, 65535], got '%s'", config->address);
    struct in_addr ignored;
    if(inet_pton(AF_INET, config->interface, &ignored) != 1)
        config_error("config: key 'interface' must be the IPv4 address of a local interface, "
                     "got '%s'", config->interface);
    config->writers = (config->signals + config->fields_per_message - 1) /
                      config->fields_per_message;
    if(config->writers > MAX_WRITERS)
        config_error("config: key 'signals' = %d needs %d DataSetWriters of "
                     "fields_per_message = %d; at most %d", config->signals, config->writers,
                     config->fields_per_message, MAX_WRITERS);
    if(config->dataset_writer_id + config->writers - 1 > 65535)
        config_error("config: key 'dataset_writer_id' = %d leaves no room for %d DataSetWriter "
                     "ids below 65536", config->dataset_writer_id, config->writers);
    json_decref(doc);
}

void pubsub_writer_fields(const pubsub_config *config, int k, int *first, int *count) {
    *first = k * config->fields_per_message;
    int rest = config->signals - *first;
    *count = rest < config->fields_per_message ? rest : config->fields_per_message;
}

void pubsub_config_json(FILE *out, const pubsub_config *c, bool subscriber) {
    fputs("{\"address\":", out);
    json_write_string(out, c->address);
    fputs(",\"interface\":", out);
    json_write_string(out, c->interface);
    fprintf(out, ",\"publisher_id\":%d,\"writer_group_id\":%d,\"dataset_writer_id\":%d,"
                 "\"signals\":%d,\"fields_per_message\":%d,\"publishing_interval_ms\":",
            c->publisher_id, c->writer_group_id, c->dataset_writer_id, c->signals,
            c->fields_per_message);
    json_number(out, c->publishing_interval_ms);
    if(subscriber) {
        fputs(",\"warmup_s\":", out);
        json_number(out, c->warmup_s);
        fputs(",\"duration_s\":", out);
        json_number(out, c->duration_s);
        fprintf(out, ",\"verify\":%s,\"timeline_ms\":%d", c->verify ? "true" : "false",
                c->timeline_ms);
    }
    fputc('}', out);
}
