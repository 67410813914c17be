import { describe, expect, it } from "vitest";
import { encode } from "../../abi/codec.js";
import { parseReply } from "../../abi/envelope.js";
import { loadReplyVectors } from "../../abi/vectors.js";
import { checkOutcome } from "../../host/pipeline/outcome-rules.js";
import type { PointName } from "../../host/pipeline/points.js";

/** The host's reading of a decoded reply: the envelope (OUTPUT_INVALID), then the point's rules. */
function read(v: ReturnType<typeof loadReplyVectors>[number]): { ok: true; outcome: unknown } | { ok: false; code: string; message: string } {
  const [major, minor] = v.marker.split(".").map(Number);
  const parsed = parseReply(v.value, (x) => encode(x).length, major, minor);
  if (!parsed.ok) return { ok: false, code: parsed.code ?? "OUTPUT_INVALID", message: parsed.message };
  const checked = checkOutcome(v.point as PointName, parsed.outcome);
  if (!checked.ok) return { ok: false, code: checked.error.code, message: checked.error.message };
  return { ok: true, outcome: parsed.outcome };
}

describe("the host against the ABI v1 reply vectors (replies.json)", () => {
  for (const v of loadReplyVectors()) {
    if (v.accepted) {
      it(`reads ${v.name} at ${v.point} from a ${v.marker} module as its outcome`, () => {
        expect(read(v)).toStrictEqual({ ok: true, outcome: v.accepted });
      });
    } else {
      it(`refuses ${v.name} at ${v.point} from a ${v.marker} module with ${v.refused!.code}`, () => {
        const r = read(v);
        expect(r).toMatchObject({ ok: false, code: v.refused!.code });
        expect((r as { message: string }).message).toContain(v.refused!.says);
      });
    }
  }
});
