/* audit-tag: observe-only. Labels lifecycle and diagnostic events with annotations the
 * host records with the operation: which point fired, plus a few identifying fields of
 * the payload (never message or result text). Always continues. */
#include "sluice.h"

static void copy(sluice_outcome *o, const sluice_value *payload, const char *field, const char *label) {
  const sluice_value *v = sluice_get(payload, field);
  if (!sluice_is_nil(v)) sluice_annotate(o, label, v);
}

static sluice_outcome *hook(const sluice_request *req) {
  const sluice_value *p = req->payload;
  sluice_outcome *o = sluice_annotate(sluice_continue(), "audit.point", sluice_string_n(req->point.ptr, req->point.len));
  const sluice_value *tag = sluice_get(req->config, "tag");
  if (sluice_is_str(tag)) sluice_annotate(o, "audit.tag", tag);
  if (sluice_str_eq(req->point, "operation.error")) {
    copy(o, p, "operation", "audit.operation");
    copy(o, p, "phase", "audit.phase");
    copy(o, sluice_get(p, "error"), "code", "audit.error_code");
    copy(o, p, "real_status", "audit.real_status");
    copy(o, p, "reached_binding", "audit.reached_binding");
  } else if (sluice_str_eq(req->point, "operation.finally")) {
    copy(o, p, "operation", "audit.operation");
    copy(o, p, "outcome", "audit.outcome");
    copy(o, p, "real_status", "audit.real_status");
  } else if (sluice_str_eq(req->point, "model.embedding.after")) {
    copy(o, p, "dimension", "audit.dimension");
    copy(o, p, "model", "audit.model");
  } else {
    /* run.start, run.end, subtask.start, subtask.end */
    copy(o, p, "run_id", "audit.run_id");
    copy(o, p, "instance_id", "audit.instance_id");
    copy(o, p, "parent_instance_id", "audit.parent_instance_id");
    copy(o, p, "status", "audit.status");
  }
  return o;
}

SLUICE_EXPORT_HOOK(hook)
