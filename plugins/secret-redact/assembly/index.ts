// secret-redact: finds credentials in a tool's model-visible output (tool.after) and in the
// user's messages (model.chat.before) and replaces each with [secret:<kind>]:
// - AWS access key ids (AKIA/ASIA + 16), GitHub tokens (ghp_/gho_/ghu_/ghs_/ghr_ + 36,
//   github_pat_), OpenAI and Anthropic keys (sk-..., sk-proj-..., sk-ant-...), Slack tokens
//   (xox[abpr]-...), Google API keys (AIza + 35), Stripe live keys (sk_live_/rk_live_);
// - PEM private keys, from "-----BEGIN ... PRIVATE KEY-----" to its END line.
// A tool's output is redacted (redact for a string view, patch_output for a structured
// one); the agents' door turns that into the agent's output replacement where it has one,
// else into a block with the reason. A prompt is rejected by default (prompt_action:
// reject), since no coding agent takes a rewritten prompt; `redact` patches it instead.
import { registerHook, Outcome, Value } from "@sluice/guest-sdk";
export * from "@sluice/guest-sdk/exports";

class Rule {
  constructor(public prefix: string, public kind: string, public minRest: i32, public maxRest: i32, public cls: i32) {}
}
// Character classes of a token's rest: 0 [A-Z0-9], 1 [A-Za-z0-9], 2 [A-Za-z0-9_-], 3 [A-Za-z0-9_], 4 [A-Za-z0-9-].
const RULES: Rule[] = [
  new Rule("AKIA", "aws_access_key", 16, 16, 0),
  new Rule("ASIA", "aws_access_key", 16, 16, 0),
  new Rule("ghp_", "github_token", 36, 255, 1),
  new Rule("gho_", "github_token", 36, 255, 1),
  new Rule("ghu_", "github_token", 36, 255, 1),
  new Rule("ghs_", "github_token", 36, 255, 1),
  new Rule("ghr_", "github_token", 36, 255, 1),
  new Rule("github_pat_", "github_token", 22, 255, 3),
  new Rule("sk-ant-", "anthropic_key", 20, 255, 2),
  new Rule("sk-", "api_key", 20, 255, 2),
  new Rule("xoxb-", "slack_token", 10, 255, 4),
  new Rule("xoxp-", "slack_token", 10, 255, 4),
  new Rule("xoxa-", "slack_token", 10, 255, 4),
  new Rule("xoxr-", "slack_token", 10, 255, 4),
  new Rule("AIza", "google_api_key", 35, 35, 2),
  new Rule("sk_live_", "stripe_key", 16, 255, 1),
  new Rule("rk_live_", "stripe_key", 16, 255, 1),
];
const PEM_BEGIN = "-----BEGIN ";
const PEM_END = "-----END ";
const PEM_TAIL = "PRIVATE KEY-----";

function inClass(c: i32, cls: i32): bool {
  const digit = c >= 48 && c <= 57;
  const upper = c >= 65 && c <= 90;
  if (cls == 0) return digit || upper;
  const alnum = digit || upper || (c >= 97 && c <= 122);
  if (cls == 1) return alnum;
  if (cls == 2) return alnum || c == 95 || c == 45;
  if (cls == 3) return alnum || c == 95;
  return alnum || c == 45;
}
function isWord(c: i32): bool { return inClass(c, 2); }

let found: i32 = 0;
let kinds: string[] = [];

/** `s` with every secret replaced; counts them in `found` and names their kinds in `kinds`. */
function redact(s: string): string {
  let out = "";
  let from = 0;
  let i = 0;
  const n = s.length;
  while (i < n) {
    // A PEM private key: the whole block.
    if (s.charCodeAt(i) == 45 && s.startsWith(PEM_BEGIN, i)) {
      const lineEnd = s.indexOf("-----", i + PEM_BEGIN.length);
      if (lineEnd > 0 && s.substring(i, lineEnd + 5).endsWith(PEM_TAIL)) {
        const end = s.indexOf(PEM_END, lineEnd + 5);
        let stop = n;
        if (end >= 0) { const close = s.indexOf("-----", end + PEM_END.length); stop = close >= 0 ? close + 5 : n; }
        out += s.substring(from, i) + "[secret:private_key]";
        found++; if (!kinds.includes("private_key")) kinds.push("private_key");
        i = stop; from = stop;
        continue;
      }
    }
    // A token starts at a word boundary.
    if (i == 0 || !isWord(<i32>s.charCodeAt(i - 1))) {
      let matched = false;
      for (let r = 0; r < RULES.length && !matched; r++) {
        const rule = RULES[r];
        if (!s.startsWith(rule.prefix, i)) continue;
        let j = i + rule.prefix.length;
        while (j < n && j - i - rule.prefix.length < rule.maxRest + 1 && inClass(<i32>s.charCodeAt(j), rule.cls)) j++;
        const rest = j - i - rule.prefix.length;
        if (rest < rule.minRest || rest > rule.maxRest) continue;
        if (j < n && isWord(<i32>s.charCodeAt(j))) continue;
        out += s.substring(from, i) + "[secret:" + rule.kind + "]";
        found++; if (!kinds.includes(rule.kind)) kinds.push(rule.kind);
        i = j; from = j; matched = true;
      }
      if (matched) continue;
    }
    i++;
  }
  return from == 0 ? s : out + s.substring(from);
}

/** A copy of `v` with every string redacted (map keys kept), or null when nothing changed. */
function redactValue(v: Value): Value | null {
  if (v.isString()) {
    const s = v.asString();
    const r = redact(s);
    return r == s ? null : Value.str(r);
  }
  if (v.isArray() || v.isMap()) {
    const map = v.isMap();
    const keys = map ? v.keys() : [];
    const items = v.values();
    const out = map ? Value.map() : Value.arr();
    let changed = false;
    for (let i = 0; i < items.length; i++) {
      const r = redactValue(items[i]);
      let x = items[i];
      if (r != null) { x = r; changed = true; }
      if (map) out.set(keys[i], x); else out.push(x);
    }
    return changed ? out : null;
  }
  return null;
}

function named(o: Outcome): Outcome {
  return o.annotate("secret_redact.found", Value.int(found)).annotate("secret_redact.kinds", Value.str(kinds.join(",")));
}

registerHook((req) => {
  if (req.point == "tool.after") {
    const view = req.payload.get("view");
    if (view.isString()) {
      const s = view.asString();
      const r = redact(s);
      return r == s ? Outcome.continue() : named(Outcome.redact(r));
    }
    const r = redactValue(view);
    return r == null ? Outcome.continue() : named(Outcome.patchOutput().replace("/view", r));
  }
  if (req.point == "model.chat.before") {
    const reject = req.config.get("prompt_action").asStringOr("reject") != "redact";
    const messages = req.payload.get("messages");
    const patch = Outcome.patchInput();
    for (let m = 0; m < messages.length; m++) {
      const msg = messages.at(m);
      if (msg.get("role").asStringOr("") != "user") continue;
      const content = msg.get("content");
      if (!content.isString()) continue;
      const s = content.asString();
      const r = redact(s);
      if (r != s) patch.replace("/messages/" + m.toString() + "/content", Value.str(r));
    }
    if (found == 0) return Outcome.continue();
    if (reject) return named(Outcome.reject("secret_redact.prompt", "secret-redact: the prompt holds " + found.toString() + " secret(s) (" + kinds.join(", ") + "); remove them and send it again"));
    return named(patch);
  }
  return Outcome.continue();
});
