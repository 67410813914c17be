import { Value } from "./value";

/**
 * Who and what the invocation is about (abi/README.md §5). Information only. Absent
 * strings read as "" and absent integers as -1, so the common case needs no null checks;
 * `raw` keeps the map for anything else.
 */
export class Context {
  spaceId: string;
  actorId: string;
  runId: string;
  instanceId: string;
  operationId: string;
  parentOperationId: string;
  callId: string;
  point: string;
  /** `action`, `compaction`, `completion` or `embedding`. */
  purpose: string;
  bindingId: string;
  publishedRevision: i64;
  /** Milliseconds since the Unix epoch. The guest has no clock: compare with values in the payload. */
  deadline: i64;

  constructor(public raw: Value) {
    this.spaceId = raw.get("space_id").asStringOr("");
    this.actorId = raw.get("actor_id").asStringOr("");
    this.runId = raw.get("run_id").asStringOr("");
    this.instanceId = raw.get("instance_id").asStringOr("");
    this.operationId = raw.get("operation_id").asStringOr("");
    this.parentOperationId = raw.get("parent_operation_id").asStringOr("");
    this.callId = raw.get("call_id").asStringOr("");
    this.point = raw.get("point").asStringOr("");
    this.purpose = raw.get("purpose").asStringOr("");
    this.bindingId = raw.get("binding_id").asStringOr("");
    this.publishedRevision = raw.get("published_revision").asIntOr(-1);
    this.deadline = raw.get("deadline").asIntOr(-1);
  }
}

/** One invocation's request (abi/README.md §4). */
export class Request {
  /** The ABI version the host speaks, e.g. "1.0". */
  abi: string;
  /** The hook point, e.g. "tool.before". */
  point: string;
  context: Context;
  /** The point's payload: only the fields the plugin was granted. */
  payload: Value;
  /** The binding's configuration, already validated by the host against the plugin's schema. */
  config: Value;
  /** At an after point: what this plugin's before hook returned in `carry`; otherwise nil. */
  carry: Value;

  constructor(public raw: Value) {
    this.abi = raw.get("abi").asStringOr("");
    this.point = raw.get("point").asStringOr("");
    this.context = new Context(raw.get("context"));
    this.payload = raw.get("payload");
    this.config = raw.get("config");
    this.carry = raw.get("carry");
  }
}
