#include "histogram.h"

static int bit_length(uint64_t v) {
    return 64 - __builtin_clzll(v);
}

/* Slots 0..255 hold values below 256 exactly; above, slot 256 + (b - 9) * 128 + (top - 128)
 * for bit length b and top = v >> (b - 8) in [128, 255]. Slot order is value order. */
static unsigned slot_of(uint64_t v) {
    if(v < 256)
        return (unsigned)v;
    int b = bit_length(v);
    return 256 + (unsigned)(b - 9) * 128 + (unsigned)((v >> (b - 8)) - 128);
}

static uint64_t value_of(unsigned slot) {
    if(slot < 256)
        return slot;
    unsigned shift = (slot - 256) / 128 + 1;
    uint64_t top = (slot - 256) % 128 + 128;
    return top << shift;
}

void histogram_record(histogram *h, int64_t value_ns) {
    h->counts[slot_of(value_ns < 1 ? 1 : (uint64_t)value_ns)]++;
}

void histogram_json(FILE *out, const histogram *h) {
    fputc('[', out);
    int first = 1;
    for(unsigned slot = 0; slot < HISTOGRAM_SLOTS; slot++) {
        if(!h->counts[slot])
            continue;
        fprintf(out, "%s[%llu,%llu]", first ? "" : ",", (unsigned long long)value_of(slot),
                (unsigned long long)h->counts[slot]);
        first = 0;
    }
    fputc(']', out);
}
