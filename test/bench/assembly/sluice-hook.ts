// The bench hook as a Sluice guest (built by scripts/build.mjs into build/bench/).
import { registerHook } from "@sluice/guest-sdk";
import { benchHook } from "./logic";
export * from "@sluice/guest-sdk/exports";

registerHook(benchHook);
