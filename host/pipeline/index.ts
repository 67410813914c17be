/** The pipeline's rules as pure functions: the same code runs in worker threads and on the main thread. */
export * from "./points.js";
export { validatePayload, payloadValidator } from "./validators.js";
export * from "./patch.js";
export * from "./outcome-rules.js";
export * from "./failure-policy.js";
export * from "./bindings.js";
export * from "./signature.js";
export { canonicalJson } from "./canonical-json.js";
export type { Checked } from "./result.js";
