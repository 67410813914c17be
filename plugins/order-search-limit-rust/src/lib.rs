//! order-search-limit: clamps the integer `limit` argument of a tool call to the binding's
//! `max_limit`. A limit within range, absent, or not an integer is left alone (the tool's
//! schema check, which runs again after the hooks, judges malformed arguments).
use sluice_guest::{export_hook, Outcome, Request, ToolBefore, Value};

fn hook(req: &Request) -> Outcome {
    let max = req.config.get("max_limit").as_int_or(i64::MAX);
    let limit = ToolBefore::of(req).arguments().get("limit");
    // is_int() also accepts an integral float (any number outside the 32-bit range arrives
    // as float64); compare as f64 so that values beyond i64 are clamped too.
    if !limit.is_int() || limit.as_float_or(0.0) <= max as f64 {
        return Outcome::continue_();
    }
    Outcome::patch_input()
        .replace("/arguments/limit", Value::Int(max))
        .annotate("order_search_limit.clamped_from", limit.clone())
}

export_hook!(hook);
