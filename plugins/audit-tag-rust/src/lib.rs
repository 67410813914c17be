//! audit-tag: observe-only. Labels lifecycle and diagnostic events with annotations the
//! host records with the operation: which point fired, plus a few identifying fields of
//! the payload (never message or result text). Always continues.
use sluice_guest::{export_hook, Outcome, Request, Value};

fn copy(o: Outcome, payload: &Value, field: &str, label: &str) -> Outcome {
    let v = payload.get(field);
    if v.is_nil() { o } else { o.annotate(label, v.clone()) }
}

fn hook(req: &Request) -> Outcome {
    let p = &req.payload;
    let mut o = Outcome::continue_().annotate("audit.point", Value::str(&req.point));
    let tag = req.config.get("tag");
    if tag.is_str() {
        o = o.annotate("audit.tag", tag.clone());
    }
    match req.point.as_str() {
        "operation.error" => {
            o = copy(o, p, "operation", "audit.operation");
            o = copy(o, p, "phase", "audit.phase");
            o = copy(o, p.get("error"), "code", "audit.error_code");
            o = copy(o, p, "real_status", "audit.real_status");
            copy(o, p, "reached_binding", "audit.reached_binding")
        }
        "operation.finally" => {
            o = copy(o, p, "operation", "audit.operation");
            o = copy(o, p, "outcome", "audit.outcome");
            copy(o, p, "real_status", "audit.real_status")
        }
        "model.embedding.after" => {
            o = copy(o, p, "dimension", "audit.dimension");
            copy(o, p, "model", "audit.model")
        }
        _ => {
            // run.start, run.end, subtask.start, subtask.end
            o = copy(o, p, "run_id", "audit.run_id");
            o = copy(o, p, "instance_id", "audit.instance_id");
            o = copy(o, p, "parent_instance_id", "audit.parent_instance_id");
            copy(o, p, "status", "audit.status")
        }
    }
}

export_hook!(hook);
