// The bench hook as an Extism plugin: same logic and msgpack codec as sluice-hook.ts,
// Extism's input/output instead of the Sluice ABI. Built with the incremental runtime,
// as Extism plugins normally are (Extism reuses one instance across calls).
import { Host } from "@extism/as-pdk";
import { decode, encode, Request } from "@sluice/guest-sdk";
import { benchHook } from "./logic";

export function handle(): i32 {
  const input = Host.input();
  const decoded = decode(input.dataStart, <usize>input.length);
  if (!decoded.ok || !decoded.value!.isMap()) { Host.outputString("malformed request"); return 1; }
  Host.output(encode(benchHook(new Request(decoded.value!)).toValue()));
  return 0;
}
