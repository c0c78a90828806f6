#include "model.h"

#include <stdlib.h>
#include <string.h>

const int16_t *model_page(void) {
    static int16_t page[PAGE_LENGTH];
    static int built;
    if(!built) {
        for(int k = 0; k < PAGE_LENGTH; k++)
            page[k] = (int16_t)((k * 37) % 65536 - 32768);
        built = 1;
    }
    return page;
}

const uint8_t *model_sdd(void) {
    static uint8_t sdd[SDD_LENGTH];
    static int built;
    if(!built) {
        for(int k = 0; k < SDD_LENGTH; k++)
            sdd[k] = (uint8_t)((k * 31 + 7) % 256);
        built = 1;
    }
    return sdd;
}

const uint8_t *model_image(void) {
    static uint8_t image[IMAGE_LENGTH];
    static int built;
    if(!built) {
        for(int k = 0; k < IMAGE_LENGTH; k++)
            image[k] = (uint8_t)((k * 13 + 1) % 256);
        built = 1;
    }
    return image;
}

const double *model_doubles(void) {
    static double doubles[ARRAY_MAX_LENGTH];
    static int built;
    if(!built) {
        for(int k = 0; k < ARRAY_MAX_LENGTH; k++)
            doubles[k] = k + 0.5;
        built = 1;
    }
    return doubles;
}

/* "Signal_12" -> 12; false unless the rest is a plain decimal number. */
static int parse_index(const char *text, uint32_t *out) {
    if(!*text || strlen(text) > 9)
        return 0;
    uint32_t value = 0;
    for(const char *c = text; *c; c++) {
        if(*c < '0' || *c > '9')
            return 0;
        value = value * 10 + (uint32_t)(*c - '0');
    }
    *out = value;
    return 1;
}

node_class model_classify(const char *name) {
    node_class c = {NODE_UNKNOWN, 0};
    if(strncmp(name, "Signal_", 7) == 0 && parse_index(name + 7, &c.index))
        c.kind = NODE_SIGNAL;
    else if(strncmp(name, "Write_", 6) == 0 && parse_index(name + 6, &c.index))
        c.kind = NODE_WRITE;
    else if(strcmp(name, "Tick") == 0)
        c.kind = NODE_TICK;
    else if(strcmp(name, "Real") == 0)
        c.kind = NODE_REAL;
    else if(strcmp(name, "Page") == 0)
        c.kind = NODE_PAGE;
    else if(strcmp(name, "SDD") == 0)
        c.kind = NODE_SDD;
    else if(strcmp(name, "Image") == 0)
        c.kind = NODE_IMAGE;
    else if(strcmp(name, "Array_10") == 0 || strcmp(name, "Array_10000") == 0) {
        c.kind = NODE_ARRAY;
        c.index = (uint32_t)atoi(name + 6);
    }
    return c;
}
