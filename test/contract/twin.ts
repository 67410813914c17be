import type { Outcome, RequestEnvelope } from "../../abi/envelope.js";
import type { InProcessHook } from "../../host/engine/hooks.js";

const SECRET = "secret";
type Cfg = Record<string, any>;

function tagged(cfg: Cfg, o: Outcome): Outcome {
  return cfg.tag === undefined ? o : { ...o, annotations: { ...(o.annotations ?? {}), [`tag_${cfg.tag}`]: true } };
}

function mask(delta: string, isLast: boolean): Outcome {
  const masked = delta.replaceAll(SECRET, "******");
  if (isLast) return masked === delta ? { kind: "continue" } : { kind: "redact", content: masked };
  let hold = 0;
  for (let n = SECRET.length - 1; n > 0; n--) if (masked.endsWith(SECRET.slice(0, n))) { hold = n; break; }
  const tail = masked.slice(masked.length - hold);
  return masked === delta ? { kind: "continue", hold: tail } : { kind: "redact", content: masked.slice(0, masked.length - hold), hold: tail };
}

/** The in-process twin of test/fixtures/guests/contract-hook.ts: same modes, same outcomes. */
export const twin: InProcessHook = async (req: RequestEnvelope, { signal }) => {
  const cfg = (req.config ?? {}) as Cfg;
  const p = req.payload as Cfg;
  const tag: string = cfg.tag ?? "";
  switch (cfg.mode ?? "continue") {
    case "continue": return tagged(cfg, { kind: "continue" });
    case "append":
      if (req.point === "tool.before") return tagged(cfg, { kind: "patch_input", patch: [{ op: "replace", path: "/arguments/trace", value: (p.arguments?.trace ?? "") + tag }] });
      if (req.point === "tool.after") return tagged(cfg, { kind: "patch_output", patch: [{ op: "replace", path: "/view", value: (typeof p.view === "string" ? p.view : "") + tag }] });
      return tagged(cfg, { kind: "patch_output", patch: [{ op: "replace", path: "/content", value: (p.content ?? "") + tag }] });
    case "patch": return tagged(cfg, { kind: (cfg.kind ?? "input") === "input" ? "patch_input" : "patch_output", patch: [{ op: "replace", path: cfg.path, value: cfg.value }] } as Outcome);
    case "reject": return { kind: "reject", code: cfg.code, reason: cfg.reason ?? "" };
    case "block": return { kind: "block", code: cfg.code, reason: cfg.reason ?? "" };
    case "block-on": return String(p.delta ?? "").includes(cfg.needle) ? { kind: "block", code: "content.blocked", reason: `found ${cfg.needle}` } : { kind: "continue" };
    case "short_circuit": return tagged(cfg, { kind: "short_circuit", result: cfg.result });
    case "carry":
      if (req.point === "tool.before" || req.point === "model.chat.before") return tagged(cfg, { kind: "continue", carry: tag });
      return { kind: "continue", annotations: { [`carry_${tag}`]: req.carry ?? null } };
    case "context": return { kind: "continue", annotations: { ctx: req.context } };
    case "observe": return { kind: "continue", annotations: { [`seen_${tag}`]: p[cfg.field] ?? null } };
    case "mask": return mask(String(p.delta ?? ""), p.is_last === true);
    case "redactor": {
      if (req.point === "model.chat.chunk") return mask(String(p.delta ?? ""), p.is_last === true);
      if (cfg.block) return { kind: "block", code: "answer.denied", reason: "denied after the stream" };
      const content = String(p.content ?? "");
      const masked = content.replaceAll(SECRET, "******") + (cfg.append ?? "");
      return masked === content ? { kind: "continue", annotations: { seen_answer: content } } : { kind: "redact", content: masked, annotations: { seen_answer: content } };
    }
    case "loop": return new Promise<Outcome>((_, reject) => signal.addEventListener("abort", () => reject(new Error("stopped")), { once: true }));
    case "abort": throw new Error("boom");
    case "texts": {
      const out = (p.texts as string[]).map((t) => t.trim());
      if (cfg.drop) out.push("extra");
      return { kind: "patch_input", patch: [{ op: "replace", path: "/texts", value: out }] };
    }
    default: throw new Error(`unknown mode ${cfg.mode}`);
  }
};
