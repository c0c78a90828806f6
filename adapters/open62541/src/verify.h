/* Value verification of SPEC §4 (same rules as contract.verify_value). */
#ifndef UABENCH_VERIFY_H
#define UABENCH_VERIFY_H

#include "model.h"

#include <open62541/types.h>
#include <stdbool.h>
#include <stddef.h>

/* True if `value` is what the standard address space holds at the node; otherwise false
 * with a short reason in `reason` (as in the result's examples). */
bool verify_value(node_class node, const char *name, const UA_Variant *value, char *reason,
                  size_t reason_size);

/* The tick a verified Signal_i or Tick value carries. */
uint32_t value_tick(node_class node, const UA_Variant *value);

#endif
