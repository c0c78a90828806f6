#include "verify.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *type_name(const UA_Variant *value) {
    if(!value->type)
        return "empty";
    return value->type->typeName ? value->type->typeName : "other type";
}

static bool scalar_of(const UA_Variant *value, int type) {
    return UA_Variant_hasScalarType(value, &UA_TYPES[type]);
}

static bool bytes_equal(const UA_Variant *value, const uint8_t *expected, size_t length) {
    if(!scalar_of(value, UA_TYPES_BYTESTRING))
        return false;
    const UA_ByteString *bytes = (const UA_ByteString *)value->data;
    return bytes->length == length && memcmp(bytes->data, expected, length) == 0;
}

static bool doubles_equal(const UA_Variant *value, const double *expected, size_t length) {
    if(!UA_Variant_hasArrayType(value, &UA_TYPES[UA_TYPES_DOUBLE]) || value->arrayLength != length)
        return false;
    const double *got = value->data;
    for(size_t k = 0; k < length; k++)
        if(got[k] != expected[k])
            return false;
    return true;
}

static bool check_signal(node_class node, const UA_Variant *value) {
    if(!scalar_of(value, UA_TYPES_FLOAT))
        return false;
    float v = *(const float *)value->data;
    return isfinite(v) && v == floorf(v) && v >= 0 && v < 16777216.0f &&
           (uint32_t)v / TICK_MODULUS == node.index % SIGNAL_INDEX_MODULUS;
}

bool verify_value(node_class node, const char *name, const UA_Variant *value, char *reason,
                  size_t reason_size) {
    bool ok = false;
    const char *expected = "";
    switch(node.kind) {
    case NODE_SIGNAL:
        ok = check_signal(node, value);
        expected = "tick-encoded Float for its index";
        break;
    case NODE_TICK:
        ok = scalar_of(value, UA_TYPES_UINT32);
        expected = "UInt32";
        break;
    case NODE_REAL:
        ok = scalar_of(value, UA_TYPES_FLOAT) && *(const float *)value->data == REAL_VALUE;
        expected = "Float 1234.5";
        break;
    case NODE_PAGE:
        ok = UA_Variant_hasArrayType(value, &UA_TYPES[UA_TYPES_INT16]) &&
             value->arrayLength == PAGE_LENGTH &&
             memcmp(value->data, model_page(), PAGE_LENGTH * sizeof(int16_t)) == 0;
        expected = "Int16[512] pattern";
        break;
    case NODE_SDD:
        ok = bytes_equal(value, model_sdd(), SDD_LENGTH);
        expected = "20000-byte pattern";
        break;
    case NODE_IMAGE:
        ok = bytes_equal(value, model_image(), IMAGE_LENGTH);
        expected = "65535-byte pattern";
        break;
    case NODE_WRITE:
        ok = scalar_of(value, UA_TYPES_DOUBLE);
        expected = "Double";
        break;
    case NODE_ARRAY:
        ok = doubles_equal(value, model_doubles(), node.index);
        expected = node.index == 10 ? "Double[10] of k + 0.5" : "Double[10000] of k + 0.5";
        break;
    case NODE_UNKNOWN:
        snprintf(reason, reason_size, "%s: not a node of the standard address space", name);
        return false;
    }
    if(ok)
        return true;
    if(scalar_of(value, UA_TYPES_FLOAT))
        snprintf(reason, reason_size, "%s: got %.9g, expected %s", name,
                 (double)*(const float *)value->data, expected);
    else if(scalar_of(value, UA_TYPES_DOUBLE))
        snprintf(reason, reason_size, "%s: got Double %.17g, expected %s", name,
                 *(const double *)value->data, expected);
    else
        snprintf(reason, reason_size, "%s: got %s%s, expected %s", name, type_name(value),
                 UA_Variant_isScalar(value) ? "" : " array", expected);
    return false;
}

uint32_t value_tick(node_class node, const UA_Variant *value) {
    if(node.kind == NODE_TICK)
        return *(const UA_UInt32 *)value->data;
    return (uint32_t)*(const float *)value->data % TICK_MODULUS;
}
