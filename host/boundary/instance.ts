import type { CallContext } from "../engine/call-types.js";

/** Bindings match on main vs child; a child agent has its own instance id. */
export function instanceOf(ctx: CallContext): "main" | "child" {
  return ctx.instanceId === undefined || ctx.instanceId === "main" ? "main" : "child";
}
