/* Latency histogram of SPEC §5: a value keeps its 8 most significant bits. Buckets live
 * in a flat array indexed by (bit length, top bits), so recording is a few instructions
 * and no allocation. */
#ifndef UABENCH_HISTOGRAM_H
#define UABENCH_HISTOGRAM_H

#include <stdint.h>
#include <stdio.h>

#define HISTOGRAM_SLOTS (256 + 56 * 128)

typedef struct {
    uint64_t counts[HISTOGRAM_SLOTS];
} histogram;

void histogram_record(histogram *h, int64_t value_ns);

/* Sparse [[bucket_value_ns, count], ...] sorted by value. */
void histogram_json(FILE *out, const histogram *h);

#endif
