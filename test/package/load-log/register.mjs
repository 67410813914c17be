// `node --import ./register.mjs`: logs ESM resolutions (hooks.mjs) and, at exit, every
// CommonJS file in require's cache, which also holds what createRequire loaded lazily.
import { appendFileSync } from "node:fs";
import { createRequire, register } from "node:module";

register("./hooks.mjs", import.meta.url);
const require = createRequire(import.meta.url);
process.on("exit", () => {
  appendFileSync(process.env.SLUICE_LOAD_LOG, Object.keys(require.cache).map((f) => `file://${f}\n`).join(""));
});
