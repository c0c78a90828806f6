/* The shared golden vectors of contract/vectors, run through this adapter's own config
 * loaders, histogram, value and verification functions (linked from the adapter, not
 * copied). Usage: contract-vectors VECTORS_DIR. Prints one line per failed vector and a
 * closing "N passed, N failed" line; exits 1 if any failed. */
#include "config.h"
#include "histogram.h"
#include "model.h"
#include "request_workload.h"
#include "verify.h"
#include "write_check.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int passed, failed;

static void check(bool ok, const char *format, ...) {
    if(ok) {
        passed++;
        return;
    }
    failed++;
    va_list args;
    va_start(args, format);
    fputs("FAIL ", stdout);
    vprintf(format, args);
    fputc('\n', stdout);
    va_end(args);
}

static json_t *load(const char *dir, const char *name) {
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    json_error_t error;
    json_t *root = json_load_file(path, 0, &error);
    if(!root) {
        fprintf(stderr, "contract-vectors: %s: %s\n", path, error.text);
        exit(2);
    }
    return root;
}

static char *text(const json_t *value) {
    return json_dumps(value, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS);
}

/* --- configs: the loader runs in a child, since a bad config ends the process ---------- */

typedef struct {
    int exit_code;
    char output[8192];   /* the child's stdout: the error event, or the config as run */
} outcome;

/* The DataSetWriters of a subscriber config, as {"writers": W, "fields": [[first, stop), ...]}. */
static void print_writers(const char *path) {
    pubsub_config config;
    pubsub_config_load(path, &config, true);
    printf("{\"writers\":%d,\"fields\":[", config.writers);
    for(int k = 0; k < config.writers; k++) {
        int first, count;
        pubsub_writer_fields(&config, k, &first, &count);
        printf("%s[%d,%d]", k ? "," : "", first, first + count);
    }
    printf("]}");
}

static void load_and_print(const char *role, const char *path) {
    if(strcmp(role, "writers") == 0) {
        print_writers(path);
    } else if(strcmp(role, "client") == 0) {
        client_config config;
        client_config_load(path, &config);
        client_config_json(stdout, &config);
    } else if(strcmp(role, "server") == 0) {
        server_config config;
        server_config_load(path, &config);
        server_config_json(stdout, &config);
    } else {
        bool subscriber = strcmp(role, "subscriber") == 0;
        pubsub_config config;
        pubsub_config_load(path, &config, subscriber);
        pubsub_config_json(stdout, &config, subscriber);
    }
    fflush(stdout);
}

/* Runs the loader of `role` on the file at `path` in a child. */
static outcome run_loader_on(const char *role, const char *path) {
    int channel[2];
    if(pipe(channel) != 0)
        abort();
    fflush(stdout);  /* or the child would write the parent's buffered lines again */
    pid_t child = fork();
    if(child == 0) {
        dup2(channel[1], STDOUT_FILENO);
        freopen("/dev/null", "w", stderr);
        load_and_print(role, path);
        _exit(0);
    }
    close(channel[1]);
    outcome out = {0};
    size_t length = 0;
    for(ssize_t got; (got = read(channel[0], out.output + length,
                                 sizeof(out.output) - 1 - length)) > 0;)
        length += (size_t)got;
    close(channel[0]);
    int status;
    waitpid(child, &status, 0);
    out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    return out;
}

static outcome run_loader(const char *role, const json_t *config) {
    char path[] = "/tmp/uabench-vector-XXXXXX";
    int fd = mkstemp(path);
    FILE *file = fdopen(fd, "w");
    json_dumpf(config, file, JSON_COMPACT);
    fclose(file);
    outcome out = run_loader_on(role, path);
    unlink(path);
    return out;
}

static void bad_configs(const json_t *vectors) {
    size_t i;
    const json_t *vector;
    json_array_foreach(json_object_get(vectors, "bad"), i, vector) {
        const char *role = json_string_value(json_object_get(vector, "role"));
        const char *key = json_string_value(json_object_get(vector, "key"));
        const char *kind = json_string_value(json_object_get(vector, "kind"));
        int exit_code = (int)json_integer_value(json_object_get(vector, "exit"));
        outcome out = run_loader(role, json_object_get(vector, "config"));
        json_t *event = json_loads(out.output, 0, NULL);
        const char *message = json_string_value(json_object_get(event, "message"));
        const char *got_kind = json_string_value(json_object_get(event, "kind"));
        char quoted[256];
        snprintf(quoted, sizeof(quoted), "'%s'", key);
        check(out.exit_code == exit_code && got_kind && strcmp(got_kind, kind) == 0 && message &&
                  strstr(message, quoted),
              "bad %s config %s: want exit %d, kind %s naming %s; got exit %d: %s", role,
              text(json_object_get(vector, "config")), exit_code, kind, quoted, out.exit_code,
              out.output);
        json_decref(event);
    }
}

/* An unreadable vector's file: each [hex, times] part's bytes `times` times, in order. */
static void write_parts(FILE *file, const json_t *parts) {
    size_t i;
    const json_t *part;
    json_array_foreach(parts, i, part) {
        const char *hex = json_string_value(json_array_get(part, 0));
        size_t length = strlen(hex) / 2;
        unsigned char bytes[256];
        if(length > sizeof(bytes)) {
            fprintf(stderr, "contract-vectors: a part of %zu bytes is too long\n", length);
            exit(2);
        }
        for(size_t k = 0; k < length; k++)
            sscanf(hex + 2 * k, "%2hhx", &bytes[k]);
        for(json_int_t n = json_integer_value(json_array_get(part, 1)); n > 0; n--)
            fwrite(bytes, 1, length, file);
    }
}

static void unreadable_configs(const json_t *vectors) {
    static const char *const ROLES[] = {"server", "client", "publisher", "subscriber"};
    size_t i;
    const json_t *vector;
    json_array_foreach(json_object_get(vectors, "unreadable"), i, vector) {
        char path[] = "/tmp/uabench-vector-XXXXXX";
        FILE *file = fdopen(mkstemp(path), "w");
        write_parts(file, json_object_get(vector, "parts"));
        fclose(file);
        const char *name = json_string_value(json_object_get(vector, "name"));
        const char *says = json_string_value(json_object_get(vector, "says"));
        const char *kind = json_string_value(json_object_get(vector, "kind"));
        int exit_code = (int)json_integer_value(json_object_get(vector, "exit"));
        /* Refused before any key is read: then the same for every role. */
        bool any_role = json_is_true(json_object_get(vector, "any_role"));
        for(int r = 0; r < 4; r++) {
            const char *role = ROLES[r];
            if(!any_role && strcmp(role, json_string_value(json_object_get(vector, "role"))))
                continue;
            outcome out = run_loader_on(role, path);
            json_t *event = json_loads(out.output, 0, NULL);
            const char *message = json_string_value(json_object_get(event, "message"));
            const char *got_kind = json_string_value(json_object_get(event, "kind"));
            check(out.exit_code == exit_code && got_kind && strcmp(got_kind, kind) == 0 &&
                      message && strstr(message, says),
                  "unreadable %s config (%s): want exit %d, kind %s saying '%s'; got exit %d: %s",
                  role, name, exit_code, kind, says, out.exit_code, out.output);
            json_decref(event);
        }
        unlink(path);
    }
}

/* JSON numbers as numbers: 100 and 1e+02 are the same value (the adapter prints doubles in
 * their shortest form), so both sides are read with every number as a real. */
static json_t *numbers_as_reals(const char *json) {
    return json_loads(json, JSON_DECODE_INT_AS_REAL, NULL);
}

static void good_configs(const json_t *vectors) {
    size_t i;
    const json_t *vector;
    json_array_foreach(json_object_get(vectors, "good"), i, vector) {
        const char *role = json_string_value(json_object_get(vector, "role"));
        char *filled = text(json_object_get(vector, "filled"));
        outcome out = run_loader(role, json_object_get(vector, "config"));
        json_t *got = numbers_as_reals(out.output), *want = numbers_as_reals(filled);
        check(out.exit_code == 0 && got && json_equal(got, want),
              "good %s config %s: want %s, got exit %d: %s", role,
              text(json_object_get(vector, "config")), filled, out.exit_code, out.output);
        json_decref(got), json_decref(want), free(filled);
    }
}

/* --- histograms (SPEC §5) ------------------------------------------------------------ */

static json_t *sparse_of(const json_t *values) {
    static histogram h;
    memset(&h, 0, sizeof(h));
    size_t i;
    const json_t *value;
    json_array_foreach(values, i, value)
        histogram_record(&h, (int64_t)json_integer_value(value));
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    histogram_json(out, &h);
    fclose(out);
    json_t *sparse = json_loads(buffer, 0, NULL);
    free(buffer);
    return sparse;
}

static void histograms(const json_t *vectors) {
    size_t i;
    const json_t *vector;
    json_array_foreach(json_object_get(vectors, "buckets"), i, vector) {
        json_int_t bucket = json_integer_value(json_object_get(vector, "bucket"));
        const char *bounds[] = {"value_ns", "low", "high"};
        for(size_t b = 0; b < 3; b++) {
            json_t *values = json_pack("[O]", json_object_get(vector, bounds[b]));
            json_t *got = sparse_of(values);
            json_t *want = json_pack("[[I,i]]", bucket, 1);
            check(json_equal(got, want), "bucket of %s %s: want %s, got %s", bounds[b],
                  text(json_object_get(vector, bounds[b])), text(want), text(got));
            json_decref(values), json_decref(got), json_decref(want);
        }
    }
    json_array_foreach(json_object_get(vectors, "histograms"), i, vector) {
        json_t *got = sparse_of(json_object_get(vector, "values_ns"));
        const json_t *want = json_object_get(vector, "sparse");
        check(json_equal(got, want), "histogram of %s: want %s, got %s",
              text(json_object_get(vector, "values_ns")), text(want), text(got));
        json_decref(got);
    }
}

/* --- value functions and verification (SPEC §4) --------------------------------------- */

/* A verification vector's value as the Variant a server of that node would send: Float for
 * Signal_i and Real, UInt32 for Tick, Double for Write_j; a number the node's type cannot
 * hold arrives as another type (Int64 or Double), which is a verification failure. */
static void variant_of(node_class node, const json_t *value, UA_Variant *out,
                       union { float f; UA_UInt32 u; UA_Int64 i; double d; } *storage) {
    double number = json_number_value(value);
    if(node.kind == NODE_TICK && json_is_integer(value) && number >= 0 && number <= UINT32_MAX) {
        storage->u = (UA_UInt32)json_integer_value(value);
        UA_Variant_setScalar(out, &storage->u, &UA_TYPES[UA_TYPES_UINT32]);
    } else if(node.kind == NODE_TICK && json_is_integer(value)) {
        storage->i = json_integer_value(value);
        UA_Variant_setScalar(out, &storage->i, &UA_TYPES[UA_TYPES_INT64]);
    } else if(node.kind == NODE_SIGNAL || node.kind == NODE_REAL) {
        storage->f = (float)number;
        UA_Variant_setScalar(out, &storage->f, &UA_TYPES[UA_TYPES_FLOAT]);
    } else {
        storage->d = number;
        UA_Variant_setScalar(out, &storage->d, &UA_TYPES[UA_TYPES_DOUBLE]);
    }
}

static double element(const char *kind, size_t k) {
    if(strcmp(kind, "page") == 0)
        return model_page()[k];
    if(strcmp(kind, "sdd") == 0)
        return model_sdd()[k];
    if(strcmp(kind, "image") == 0)
        return model_image()[k];
    return model_doubles()[k];
}

static void contents(const char *kind, const json_t *vector, size_t model_length) {
    size_t length = (size_t)json_integer_value(json_object_get(vector, "length"));
    check(length == model_length, "%s: length %zu, the model has %zu", kind, length,
          model_length);
    size_t i;
    const json_t *sample;
    json_array_foreach(json_object_get(vector, "samples"), i, sample) {
        size_t k = (size_t)json_integer_value(json_array_get(sample, 0));
        double want = json_number_value(json_array_get(sample, 1));
        check(k < model_length && element(kind, k) == want, "%s[%zu]: want %g, got %g", kind,
              k, want, k < model_length ? element(kind, k) : 0.0);
    }
    double sum = 0;
    for(size_t k = 0; k < model_length; k++)
        sum += element(kind, k);
    double want = json_number_value(json_object_get(vector, "sum"));
    check(sum == want, "%s: sum %.17g, want %.17g", kind, sum, want);
}

static void values(const json_t *vectors) {
    size_t i;
    const json_t *vector;
    json_array_foreach(json_object_get(vectors, "signal"), i, vector) {
        uint32_t index = (uint32_t)json_integer_value(json_object_get(vector, "index"));
        uint32_t tick = (uint32_t)json_integer_value(json_object_get(vector, "tick"));
        double want = json_number_value(json_object_get(vector, "value"));
        check(signal_value(index, tick) == want, "signal(%u, %u): want %g, got %g", index,
              tick, want, signal_value(index, tick));
    }
    json_array_foreach(json_object_get(vectors, "signal_tick"), i, vector) {
        float value = (float)json_number_value(json_object_get(vector, "value"));
        UA_Variant variant;
        UA_Variant_setScalar(&variant, &value, &UA_TYPES[UA_TYPES_FLOAT]);
        uint32_t tick = value_tick(model_classify("Signal_0"), &variant);
        json_int_t want = json_integer_value(json_object_get(vector, "tick"));
        check(tick == want, "tick of %g: want %lld, got %u", value, (long long)want, tick);
    }
    json_array_foreach(json_object_get(vectors, "verify"), i, vector) {
        const char *name = json_string_value(json_object_get(vector, "node"));
        const json_t *value = json_object_get(vector, "value");
        bool want = json_is_true(json_object_get(vector, "valid"));
        node_class node = model_classify(name);
        UA_Variant variant;
        union { float f; UA_UInt32 u; UA_Int64 i; double d; } storage;
        variant_of(node, value, &variant, (void *)&storage);
        char reason[256] = "";
        bool got = verify_value(node, name, &variant, reason, sizeof(reason));
        check(got == want, "verify %s = %s: want %s, got %s (%s)", name, text(value),
              want ? "valid" : "invalid", got ? "valid" : "invalid", reason);
    }
    check(json_number_value(json_object_get(vectors, "real")) == REAL_VALUE, "Real");
    contents("page", json_object_get(vectors, "page"), PAGE_LENGTH);
    contents("sdd", json_object_get(vectors, "sdd"), SDD_LENGTH);
    contents("image", json_object_get(vectors, "image"), IMAGE_LENGTH);
    const char *name;
    const json_t *array;
    json_object_foreach(json_object_get(vectors, "arrays"), name, array) {
        node_class node = model_classify(name);
        check(node.kind == NODE_ARRAY, "%s is not an array node", name);
        contents("array", array, node.index);
    }
    json_array_foreach(json_object_get(vectors, "write_value"), i, vector) {
        int session = (int)json_integer_value(json_object_get(vector, "session"));
        uint64_t k = (uint64_t)json_integer_value(json_object_get(vector, "request"));
        size_t npr = (size_t)json_integer_value(json_object_get(vector, "nodes_per_request"));
        size_t j = (size_t)json_integer_value(json_object_get(vector, "position"));
        double want = json_number_value(json_object_get(vector, "value"));
        check(write_value(session, k, npr, j) == want, "write value (%d, %llu, %zu, %zu): want "
              "%.17g, got %.17g", session, (unsigned long long)k, npr, j, want,
              write_value(session, k, npr, j));
    }
    json_array_foreach(json_object_get(vectors, "request_nodes"), i, vector) {
        const json_t *nodes = json_object_get(vector, "nodes");
        uint64_t k = (uint64_t)json_integer_value(json_object_get(vector, "request"));
        size_t npr = (size_t)json_integer_value(json_object_get(vector, "nodes_per_request"));
        size_t n = json_array_size(nodes), first = request_first_node(k, npr, n);
        json_t *got = json_array();
        for(size_t j = 0; j < npr; j++)  /* the workload's ring: position first + j, wrapped */
            json_array_append(got, json_array_get(nodes, (first + j) % n));
        const json_t *want = json_object_get(vector, "result");
        check(json_equal(got, want), "request %llu of %s: want %s, got %s",
              (unsigned long long)k, text(nodes), text(want), text(got));
        json_decref(got);
    }
    json_array_foreach(json_object_get(vectors, "writers"), i, vector) {
        json_t *config = json_pack("{s:O,s:O}", "signals", json_object_get(vector, "signals"),
                                   "fields_per_message",
                                   json_object_get(vector, "fields_per_message"));
        outcome out = run_loader("writers", config);
        json_t *got = json_loads(out.output, 0, NULL);
        json_t *want = json_pack("{s:O,s:O}", "writers", json_object_get(vector, "writers"),
                                 "fields", json_object_get(vector, "fields"));
        check(out.exit_code == 0 && got && json_equal(got, want), "writers of %s: want %s, got "
              "%s", text(config), text(want), out.output);
        json_decref(config), json_decref(got), json_decref(want);
    }
    json_array_foreach(json_object_get(vectors, "write_verification_value"), i, vector) {
        int pattern = (int)json_integer_value(json_object_get(vector, "pattern"));
        size_t position = (size_t)json_integer_value(json_object_get(vector, "position"));
        double want = json_number_value(json_object_get(vector, "value"));
        check(pattern_value(pattern, position) == want, "write verification value (%d, %zu): "
              "want %.17g, got %.17g", pattern, position, want, pattern_value(pattern, position));
    }
}

int main(int argc, char **argv) {
    if(argc != 2) {
        fprintf(stderr, "usage: contract-vectors VECTORS_DIR\n");
        return 2;
    }
    json_t *configs = load(argv[1], "configs.json");
    json_t *buckets = load(argv[1], "histogram.json");
    json_t *functions = load(argv[1], "values.json");
    bad_configs(configs);
    unreadable_configs(configs);
    good_configs(configs);
    histograms(buckets);
    values(functions);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
