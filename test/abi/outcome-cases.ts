/**
 * What every guest SDK's outcomes fixture builds for each case (guest-sdk-outcomes.test.ts
 * for AssemblyScript, native-sdk-outcomes.test.ts for Rust and C): one table, each SDK held
 * to it through the real host.
 */
export const BUILT_OUTCOMES: readonly { title: string; case: string; outcome: Record<string, unknown> }[] = [
  { title: "continue with a carry and annotations, keeping non-ASCII text", case: "continue_carry", outcome: { kind: "continue", carry: { seen: "é中😀" }, annotations: { checked: true, score: 0.25 } } },
  {
    title: "patch_input from chained replace, add and remove, in order, with a value read from config", case: "patch_input",
    outcome: {
      kind: "patch_input",
      patch: [
        { op: "replace", path: "/arguments/limit", value: 100 },
        { op: "add", path: "/arguments/tags/-", value: "capped" },
        { op: "remove", path: "/arguments/debug" },
      ],
    },
  },
  { title: "patch_output", case: "patch_output", outcome: { kind: "patch_output", patch: [{ op: "replace", path: "/content", value: "résumé" }] } },
  { title: "reject with its code and a non-ASCII reason", case: "reject", outcome: { kind: "reject", code: "limit_exceeded", reason: "limit is above the maximum — ça dépasse" } },
  { title: "short_circuit with a result", case: "short_circuit", outcome: { kind: "short_circuit", result: { cached: true, hits: ["a"] } } },
  { title: "redact with a held suffix", case: "redact", outcome: { kind: "redact", content: "card [redacted]", hold: "41" } },
  { title: "block with its code and reason", case: "block", outcome: { kind: "block", code: "pii.card", reason: "a card number" } },
];
