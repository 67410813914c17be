// order-search-limit: clamps the integer `limit` argument of a tool call to the binding's
// `max_limit`. A limit within range, absent, or not an integer is left alone (the tool's
// schema check, which runs again after the hooks, judges malformed arguments).
import { registerHook, Outcome, Value, ToolBefore } from "@sluice/guest-sdk";
export * from "@sluice/guest-sdk/exports";

registerHook((req) => {
  const max = req.config.get("max_limit").asInt();
  const limit = ToolBefore.of(req).arguments.get("limit");
  // isInt() also accepts an integral float (any number outside the 32-bit range arrives as
  // float64); compare as f64 so that values beyond i64 cannot abort the hook.
  if (!limit.isInt() || limit.asFloat() <= <f64>max) return Outcome.continue();
  return Outcome.patchInput()
    .replace("/arguments/limit", Value.int(max))
    .annotate("order_search_limit.clamped_from", limit);
});
