// audit-tag: observe-only. Labels lifecycle and diagnostic events with annotations the
// host records with the operation: which point fired, plus a few identifying fields of
// the payload (never message or result text). Always continues.
import { registerHook, Outcome, Value, Request } from "@sluice/guest-sdk";
export * from "@sluice/guest-sdk/exports";

function copy(o: Outcome, payload: Value, field: string, label: string): void {
  const v = payload.get(field);
  if (!v.isNil()) o.annotate(label, v);
}

registerHook((req: Request) => {
  const p = req.payload;
  const o = Outcome.continue().annotate("audit.point", Value.str(req.point));
  const tag = req.config.get("tag");
  if (tag.isString()) o.annotate("audit.tag", tag);
  if (req.point == "operation.error") {
    copy(o, p, "operation", "audit.operation");
    copy(o, p, "phase", "audit.phase");
    copy(o, p.get("error"), "code", "audit.error_code");
    copy(o, p, "real_status", "audit.real_status");
    copy(o, p, "reached_binding", "audit.reached_binding");
  } else if (req.point == "operation.finally") {
    copy(o, p, "operation", "audit.operation");
    copy(o, p, "outcome", "audit.outcome");
    copy(o, p, "real_status", "audit.real_status");
  } else if (req.point == "model.embedding.after") {
    copy(o, p, "dimension", "audit.dimension");
    copy(o, p, "model", "audit.model");
  } else {
    // run.start, run.end, subtask.start, subtask.end
    copy(o, p, "run_id", "audit.run_id");
    copy(o, p, "instance_id", "audit.instance_id");
    copy(o, p, "parent_instance_id", "audit.parent_instance_id");
    copy(o, p, "status", "audit.status");
  }
  return o;
});
