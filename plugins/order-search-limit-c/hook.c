/* order-search-limit: clamps the integer `limit` argument of a tool call to the binding's
 * `max_limit`. A limit within range, absent, or not an integer is left alone (the tool's
 * schema check, which runs again after the hooks, judges malformed arguments). */
#include "sluice.h"

static sluice_outcome *hook(const sluice_request *req) {
  int64_t max = sluice_as_int_or(sluice_get(req->config, "max_limit"), INT64_MAX);
  const sluice_value *limit = sluice_get(sluice_tool_arguments(req), "limit");
  /* sluice_is_int also accepts an integral float (any number outside the 32-bit range
   * arrives as float64); compare as double so that values beyond int64 are clamped too. */
  if (!sluice_is_int(limit) || sluice_as_float_or(limit, 0) <= (double)max) return sluice_continue();
  sluice_outcome *o = sluice_replace(sluice_patch_input(), "/arguments/limit", sluice_int(max));
  return sluice_annotate(o, "order_search_limit.clamped_from", limit);
}

SLUICE_EXPORT_HOOK(hook)
