// order-search-limit, in JavaScript: the same hook as ../../order-search-limit (clamps the
// integer `limit` argument of a tool call to the binding's `max_limit`), built as a
// component of the sluice:hook world (abi/wit/sluice-hook.wit) with componentize-js.
// It speaks the msgpack ABI v1 through `handle(list<u8>) -> list<u8>`.
import { abort } from "sluice:hook/host@1.0.0";
import { decode, encode } from "./msgpack.js";

const ABI = "1.0";

function hook(req) {
  const max = req.config?.max_limit;
  const limit = req.payload?.arguments?.limit;
  // As the AssemblyScript hook: an integral float counts as an integer; anything else is left
  // to the tool's schema check, which runs again after the hooks.
  const isInt = (typeof limit === "number" && Number.isInteger(limit)) || typeof limit === "bigint";
  if (!isInt || Number(limit) <= Number(max)) return { abi: ABI, outcome: "continue" };
  return {
    abi: ABI,
    outcome: "patch_input",
    patch: [{ op: "replace", path: "/arguments/limit", value: max }],
    annotations: { "order_search_limit.clamped_from": limit },
  };
}

export const handler = {
  /** @param {Uint8Array} request the v1 msgpack request envelope */
  handle(request) {
    let req;
    try {
      req = decode(request);
    } catch (err) {
      // As the AssemblyScript SDK: a request the guest cannot decode is a host bug.
      abort(`sluice: malformed request: ${err.message}`);
    }
    return encode(hook(req));
  },
};
