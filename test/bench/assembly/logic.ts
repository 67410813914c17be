// The hook logic every compared system runs: the same source, built once against the
// Sluice ABI (sluice-hook.ts) and once against Extism's PDK (extism-hook.ts). Like the
// contract hook's "continue" mode, it decodes the whole request, reads its config and
// payload, and answers with an encoded outcome.
import { Outcome, Request, Value } from "@sluice/guest-sdk";

export function benchHook(req: Request): Outcome {
  const tag = req.config.get("tag").asStringOr("");
  const blob = req.payload.get("arguments").get("blob").asStringOr("");
  const o = Outcome.continue();
  return tag.length > 0 ? o.annotate("tag_" + tag, Value.bool(blob.length > 0)) : o;
}
