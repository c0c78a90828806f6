/* The shared golden vectors of contract/vectors, run through this adapter's own config
 * loaders, histogram, value and verification functions (linked from the adapter, not
 * copied). Usage: contract-vectors VECTORS_DIR. Prints one line per failed vector and a
 * closing "N passed, N failed" line; exits 1 if any failed. */
#include "config.h"
#include "histogram.h"
#include "model.h"
#include "read_back.h"
#include "recorder.h"
#include "request_workload.h"
#include "subscribe.h"
#include "tick_check.h"
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

/* Storage for a vector's scalar: the Variant points into it. */
typedef union {
    UA_UInt32 u;
    UA_Int32 i32;
    UA_Int64 i;
    UA_Float f;
    UA_Double d;
} scalar;

/* A verification vector's value as the Variant a server of that node would send: Float for
 * Signal_i and Real, UInt32 for Tick, Double for Write_j; a number the node's type cannot
 * hold arrives as another type (Int64 or Double), which is a verification failure. */
static void variant_of(node_class node, const json_t *value, UA_Variant *out, scalar *storage) {
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
        scalar storage;
        variant_of(node, value, &variant, &storage);
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

/* --- verification.json: the rules each client re-implements (SPEC §3 R1–R4, W1, the
 * subscription's lifetime; SPEC §6 the timeline), replayed through this adapter's own
 * tick_check, read_back, lifetime_count and timeline with open62541's types ------------- */

/* A vector's instant (µs since 1970) as a DateTime (100 ns since 1601). */
static UA_DateTime date_time_us(const json_t *us) {
    return UA_DATETIME_UNIX_EPOCH + (UA_DateTime)json_integer_value(us) * UA_DATETIME_USEC;
}

/* A vector's value as the DataValue the SDK decodes from a server's: a scalar of the built-in
 * type named `type` (null: no value) with a SourceTimestamp unless `source_us` is null, and
 * no status (Good). */
static UA_DataValue data_value_of(const char *type, const json_t *value, const json_t *source_us,
                                  scalar *storage) {
    UA_DataValue dv;
    UA_DataValue_init(&dv);
    if(!json_is_null(value)) {
        const UA_DataType *data_type = NULL;
        if(strcmp(type, "UInt32") == 0) {
            storage->u = (UA_UInt32)json_integer_value(value);
            data_type = &UA_TYPES[UA_TYPES_UINT32];
        } else if(strcmp(type, "Int32") == 0) {
            storage->i32 = (UA_Int32)json_integer_value(value);
            data_type = &UA_TYPES[UA_TYPES_INT32];
        } else if(strcmp(type, "Float") == 0) {
            storage->f = (UA_Float)json_number_value(value);
            data_type = &UA_TYPES[UA_TYPES_FLOAT];
        } else if(strcmp(type, "Double") == 0) {
            storage->d = json_number_value(value);
            data_type = &UA_TYPES[UA_TYPES_DOUBLE];
        } else {
            fprintf(stderr, "contract-vectors: no %s values in this runner\n", type);
            exit(2);
        }
        UA_Variant_setScalar(&dv.value, storage, data_type);
        dv.hasValue = true;
    }
    if(!json_is_null(source_us)) {
        dv.hasSourceTimestamp = true;
        dv.sourceTimestamp = date_time_us(source_us);
    }
    return dv;
}

/* A verdict against a vector's `fails` entry: null, it must pass; else its failure message
 * must contain every fragment (a Double in it prints differently by language). */
static bool as_expected(bool ok, const char *reason, const json_t *fragments) {
    if(json_is_null(fragments))
        return ok;
    if(ok || !json_is_array(fragments)) /* also a vector without this entry */
        return false;
    size_t i;
    const json_t *fragment;
    json_array_foreach(fragments, i, fragment)
        if(!strstr(reason, json_string_value(fragment)))
            return false;
    return true;
}

/* One response of a read vector, judged value by value as the client's verify_results does:
 * on its own (SPEC §4), then against the ticks (tick_check), for a request that kept `sent`. */
static void read_response(tick_check *ticks, const char *label, const json_t *nodes,
                          const json_t *response, uint32_t sent) {
    int session = (int)json_integer_value(json_object_get(response, "session"));
    size_t first = (size_t)json_integer_value(json_object_get(response, "first"));
    UA_DateTime received = date_time_us(json_object_get(response, "received_us"));
    bool measured = json_is_true(json_object_get(response, "measured"));
    const json_t *values = json_object_get(response, "values");
    const json_t *fails = json_object_get(response, "fails");
    size_t count = json_array_size(values), positions = json_array_size(nodes);
    /* The client's ring: the classes and names at positions first, first + 1, ... */
    node_class *classes = calloc(count, sizeof(node_class));
    const char **names = calloc(count, sizeof(char *));
    UA_DataValue *data_values = calloc(count, sizeof(UA_DataValue));
    scalar *storage = calloc(count, sizeof(scalar));
    for(size_t k = 0; k < count; k++) {
        const json_t *value = json_array_get(values, k);
        names[k] = json_string_value(json_array_get(nodes, (first + k) % positions));
        classes[k] = model_classify(names[k]);
        data_values[k] = data_value_of(json_string_value(json_object_get(value, "type")),
                                       json_object_get(value, "value"),
                                       json_object_get(value, "source_us"), &storage[k]);
    }
    response_tick ref;
    response_tick_find(&ref, classes, data_values, count);
    for(size_t k = 0; k < count; k++) {
        char reason[160] = "";
        bool ok = verify_value(classes[k], names[k], &data_values[k].value, reason,
                               sizeof(reason)) &&
                  tick_check_value(ticks, session, first + k, classes[k], names[k],
                                   &data_values[k], &ref, sent, received, measured, reason,
                                   sizeof(reason));
        const json_t *expected = json_array_get(fails, k);
        check(as_expected(ok, reason, expected), "read %s, value %zu (%s): got %s, expected %s",
              label, k, names[k], ok ? "a pass" : reason, text(expected));
    }
    free(classes), free(names), free(data_values), free(storage);
}

/* A read vector: its steps through one tick_check of all sessions, as the read workload keeps
 * it; a `send` keeps the session's high-water tick for its request (tick_check_sent). */
static void read_case(const json_t *vector) {
    const char *name = json_string_value(json_object_get(vector, "name"));
    const json_t *nodes = json_object_get(vector, "nodes");
    size_t positions = json_array_size(nodes);
    node_class *classes = calloc(positions, sizeof(node_class));
    for(size_t p = 0; p < positions; p++)
        classes[p] = model_classify(json_string_value(json_array_get(nodes, p)));
    tick_check ticks;
    tick_check_init(&ticks, classes, positions,
                    (int)json_integer_value(json_object_get(vector, "sessions")));
    json_t *kept = json_object(); /* request -> the high-water tick its send kept */
    size_t i;
    const json_t *step;
    json_array_foreach(json_object_get(vector, "steps"), i, step) {
        const json_t *send = json_object_get(step, "send");
        if(send) {
            int session = (int)json_integer_value(json_object_get(send, "session"));
            json_object_set_new(kept, json_string_value(json_object_get(send, "request")),
                                json_integer(tick_check_sent(&ticks, session)));
            continue;
        }
        const json_t *response = json_object_get(step, "response");
        const char *request = json_string_value(json_object_get(response, "request"));
        uint32_t sent = TICK_NONE; /* no request: sent before any tick arrived */
        char label[320];
        snprintf(label, sizeof(label), "'%s' step %zu", name, i);
        if(request) { /* answered once, as the client frees the request's slot */
            const json_t *high = json_object_get(kept, request);
            check(high != NULL, "read %s: a response to %s, not sent", label, request);
            sent = (uint32_t)json_integer_value(high);
            json_object_del(kept, request);
        }
        read_response(&ticks, label, nodes, response, sent);
    }
    /* SPEC §6 ticks_advanced: what the read workload reports at its end */
    json_int_t want = json_integer_value(json_object_get(vector, "ticks_advanced"));
    uint64_t got = tick_check_advanced(&ticks);
    check(got == (uint64_t)want, "read '%s': ticks_advanced %llu, expected %lld", name,
          (unsigned long long)got, (long long)want);
    json_decref(kept);
    tick_check_free(&ticks);
    free(classes);
}

/* W1: one value read back, judged at the config position of its node. */
static void read_back_case(const json_t *vector) {
    const char *name = json_string_value(json_object_get(vector, "name"));
    const char *node = json_string_value(json_object_get(vector, "node"));
    const json_t *nodes = json_object_get(vector, "nodes");
    size_t count = json_array_size(nodes), position = count;
    char **names = calloc(count, sizeof(char *));
    for(size_t p = 0; p < count; p++) {
        names[p] = (char *)json_string_value(json_array_get(nodes, p));
        if(position == count && strcmp(names[p], node) == 0)
            position = p;
    }
    if(position == count) {
        check(false, "read_back '%s': %s is not among its nodes", name, node);
        free(names);
        return;
    }
    read_back_rule rule = {names, count,
                           (size_t)json_integer_value(json_object_get(vector, "nodes_per_request")),
                           (int)json_integer_value(json_object_get(vector, "sessions"))};
    scalar storage;
    UA_DataValue dv = data_value_of(json_string_value(json_object_get(vector, "type")),
                                    json_object_get(vector, "value"), json_null(), &storage);
    dv.hasStatus = true;
    dv.status = (UA_StatusCode)json_integer_value(json_object_get(vector, "status_code"));
    char reason[256] = "";
    bool ok = read_back_judge(&rule, position, &dv,
                              (uint64_t)json_integer_value(json_object_get(vector, "lowest")),
                              (uint64_t)json_integer_value(json_object_get(vector, "request")),
                              reason, sizeof(reason));
    const json_t *expected = json_object_get(vector, "fails");
    check(as_expected(ok, reason, expected), "read_back '%s': got %s, expected %s", name,
          ok ? "a pass" : reason, text(expected));
    free(names);
}

/* W1's C: session 0's requests held in slots as the client's are (a request_mark each), sent
 * in order and finished in any; a `lowest` step is C for the request sent next. */
static void lowest_in_flight_case(const json_t *vector) {
    enum { SLOTS = 16 };
    const char *name = json_string_value(json_object_get(vector, "name"));
    request_mark slots[SLOTS] = {{0}};
    uint64_t next = 0;
    size_t i;
    const json_t *step;
    json_array_foreach(json_object_get(vector, "steps"), i, step) {
        const json_t *sent = json_object_get(step, "sent");
        const json_t *finished = json_object_get(step, "finished");
        const json_t *lowest = json_object_get(step, "lowest");
        size_t s = 0;
        if(sent) { /* into a free slot; requests are numbered in the order they are sent */
            uint64_t k = (uint64_t)json_integer_value(sent);
            while(s < SLOTS && slots[s].busy)
                s++;
            check(s < SLOTS && k == next, "lowest_in_flight '%s': sent %llu where %llu was "
                  "next, or more than %d in flight", name, (unsigned long long)k,
                  (unsigned long long)next, SLOTS);
            if(s < SLOTS)
                slots[s] = (request_mark){k, true};
            next = k + 1;
        } else if(finished) { /* its slot is free again */
            uint64_t k = (uint64_t)json_integer_value(finished);
            while(s < SLOTS && !(slots[s].busy && slots[s].k == k))
                s++;
            check(s < SLOTS, "lowest_in_flight '%s': %llu finished, not in flight", name,
                  (unsigned long long)k);
            if(s < SLOTS)
                slots[s].busy = false;
        } else if(lowest) {
            uint64_t got = read_back_lowest(slots, SLOTS, sizeof(request_mark), next);
            check(got == (uint64_t)json_integer_value(lowest),
                  "lowest_in_flight '%s' step %zu: C %llu, expected %lld", name, i,
                  (unsigned long long)got, (long long)json_integer_value(lowest));
        }
    }
}

static void lifetime_case(const json_t *vector) {
    json_int_t keep_alive = json_integer_value(json_object_get(vector, "keep_alive_count"));
    json_int_t timeout = json_integer_value(json_object_get(vector, "session_timeout_ms"));
    double interval = json_number_value(json_object_get(vector, "publishing_interval_ms"));
    json_int_t want = json_integer_value(json_object_get(vector, "lifetime_count"));
    UA_UInt32 got = lifetime_count((UA_UInt32)keep_alive, (UA_UInt32)timeout, interval);
    check(got == want, "lifetime of %s: %u, expected %lld", text(vector), got, (long long)want);
}

/* SPEC §6: the record's timeline, as recorder_json writes it, for the completions. */
static void timeline_case(const json_t *vector) {
    timeline t;
    timeline_init(&t, (int)json_integer_value(json_object_get(vector, "window_ms")));
    const json_t *begin = json_object_get(vector, "begin");
    if(!json_is_null(begin))
        timeline_begin(&t, json_integer_value(json_object_get(begin, "start_ns")),
                       json_integer_value(json_object_get(begin, "span_ns")),
                       json_integer_value(json_object_get(begin, "offset_ns")));
    size_t i;
    const json_t *completion;
    json_array_foreach(json_object_get(vector, "completions"), i, completion)
        timeline_completed(&t, json_integer_value(json_array_get(completion, 0)),
                           (uint64_t)json_integer_value(json_array_get(completion, 1)));
    char *buffer = NULL;
    size_t size = 0;
    FILE *out = open_memstream(&buffer, &size);
    fputc('{', out); /* timeline_json writes the member "timeline":{...} */
    timeline_json(out, &t, json_integer_value(json_object_get(vector, "end_ns")));
    fputc('}', out);
    fclose(out);
    json_t *got = json_loads(buffer, 0, NULL);
    const json_t *want = json_object_get(vector, "record");
    check(json_equal(json_object_get(got, "timeline"), want), "timeline '%s': want %s, got %s",
          json_string_value(json_object_get(vector, "name")), text(want), buffer);
    json_decref(got), free(buffer), free(t.ops), free(t.values);
}

static void verification(const json_t *vectors) {
    static const struct {
        const char *section;
        void (*replay)(const json_t *vector);
    } SECTIONS[] = {{"read", read_case},
                    {"read_back", read_back_case},
                    {"lowest_in_flight", lowest_in_flight_case},
                    {"lifetime", lifetime_case},
                    {"timeline", timeline_case}};
    for(size_t s = 0; s < sizeof(SECTIONS) / sizeof(SECTIONS[0]); s++) {
        const json_t *cases = json_object_get(vectors, SECTIONS[s].section);
        /* a section this runner lost track of must not pass by being skipped */
        check(json_array_size(cases) > 0, "verification.json: no %s vectors",
              SECTIONS[s].section);
        size_t i;
        const json_t *vector;
        json_array_foreach(cases, i, vector)
            SECTIONS[s].replay(vector);
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
    json_t *verifications = load(argv[1], "verification.json");
    bad_configs(configs);
    unreadable_configs(configs);
    good_configs(configs);
    histograms(buckets);
    values(functions);
    verification(verifications);
    printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
