/** The demo's bindings, as a platform team writes them to the management API: every reference plugin at its points. */
export const DEMO_BINDINGS = [
  { id: "guard-prompts", hook_ref: "prompt-guard@1.0.0", point: "model.chat.before", priority: 10, config: { deny: ["drop table"] } },
  { id: "cache-lookup", hook_ref: "response-cache@1.1.0", point: "model.chat.before", priority: 20, match: { purposes: ["action"] } },
  { id: "cache-store", hook_ref: "response-cache@1.1.0", point: "model.chat.after", priority: 20, match: { purposes: ["action"] } },
  { id: "normalize-answer", hook_ref: "answer-normalize@1.0.0", point: "model.chat.after", priority: 30 },
  { id: "redact-answer", hook_ref: "pii-redact@1.0.0", point: "model.chat.after", priority: 40 },
  { id: "redact-stream", hook_ref: "pii-redact@1.0.0", point: "model.chat.chunk", priority: 10 },
  { id: "meter-stream", hook_ref: "token-meter@1.0.0", point: "model.chat.chunk", priority: 20, observe_only: true, failure_policy: "fail-open" },
  { id: "clamp-order-search", hook_ref: "order-search-limit@1.0.0", point: "tool.before", match: { tool_ids: ["orders.search"] }, config: { max_limit: 50 } },
  { id: "guard-workspace", hook_ref: "workspace-path-guard@1.0.0", point: "tool.before", match: { tool_ids: ["files.read"] }, config: { workspace: "/srv/workspace" } },
  { id: "redact-tool-view", hook_ref: "pii-redact@1.0.0", point: "tool.after", priority: 10 },
  { id: "normalize-embedding-input", hook_ref: "embedding-normalize@1.0.0", point: "model.embedding.before" },
  { id: "audit-runs", hook_ref: "audit-tag@1.0.0", point: "run.start", observe_only: true, failure_policy: "fail-open", config: { tag: "demo" } },
  { id: "audit-finally", hook_ref: "audit-tag@1.0.0", point: "operation.finally", observe_only: true, failure_policy: "fail-open", config: { tag: "demo" } },
] as const;

export const DEMO_PLUGINS = [
  "prompt-guard", "response-cache", "answer-normalize", "pii-redact", "token-meter",
  "order-search-limit", "workspace-path-guard", "embedding-normalize", "audit-tag",
] as const;
