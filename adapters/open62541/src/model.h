/* The standard address space of SPEC §4: names and value functions, shared by the server
 * (which publishes them) and the client (which verifies them). */
#ifndef UABENCH_MODEL_H
#define UABENCH_MODEL_H

#include <stdint.h>

#define MODEL_NAMESPACE_URI "urn:uabench:model"
#define MODEL_OBJECT "uabench"
#define PAGE_LENGTH 512
#define SDD_LENGTH 20000
#define IMAGE_LENGTH 65535
#define ARRAY_MAX_LENGTH 10000 /* Array_10 and Array_10000: Double[n], element k = k + 0.5 */
#define REAL_VALUE 1234.5f
#define TICK_MODULUS 16384u
#define SIGNAL_INDEX_MODULUS 1024u

static inline float signal_value(uint32_t index, uint32_t tick) {
    return (float)((index % SIGNAL_INDEX_MODULUS) * TICK_MODULUS + (tick % TICK_MODULUS));
}

/* Process-wide constant contents, built on first use. */
const int16_t *model_page(void);
const uint8_t *model_sdd(void);
const uint8_t *model_image(void);
/* ARRAY_MAX_LENGTH Doubles k + 0.5; Array_n holds the first n of them. */
const double *model_doubles(void);

/* What a NodeId name of the model is, so the hot path never parses names. */
typedef enum { NODE_SIGNAL, NODE_TICK, NODE_REAL, NODE_PAGE, NODE_SDD, NODE_IMAGE, NODE_WRITE,
               NODE_ARRAY, NODE_UNKNOWN } node_kind;

typedef struct {
    node_kind kind;
    uint32_t index;  /* i of Signal_i, j of Write_j, length n of Array_n */
} node_class;

node_class model_classify(const char *name);

#endif
