/**
 * Component fixtures: AssemblyScript hooks in test/fixtures/components/assembly/, wrapped as
 * components (host/sandbox/loader/component/wrap-core.ts). scripts/build.mjs writes them to
 * build/fixtures/components/; a missing or stale copy is rebuilt here instead.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { compileAssemblyScript, REPO_ROOT } from "../../host/toolchain/assemblyscript.js";
import { wrapCore } from "../../host/sandbox/loader/component/wrap-core.js";

/** A world that imports wasi:random, which the host never serves: declared here, not in abi/wit. */
const WASI_WIT = `world hook-wasi { include hook; import wasi:random/random@0.2.0; }
package wasi:random@0.2.0 { interface random { get-random-u64: func() -> u64; } }`;

/** Fixture name → how to wrap it. `core` names a WAT fixture (build/fixtures/<core>.wasm) to wrap instead of an AssemblyScript source. */
export const COMPONENT_FIXTURES: Readonly<Record<string, { world?: string; extraWit?: string; core?: string }>> = {
  "reply-wrapping": { core: "component-core-reply-wrapping" },
  "reply-huge-length": { core: "component-core-reply-huge-length" },
  "reply-past-end": { core: "component-core-reply-past-end" },
  "table-bomb": { core: "component-core-table-bomb" },
  "wat-continue": { core: "component-core-continue" },
  "kv-set-out-of-bounds": { world: "hook-kv", core: "component-core-kv-set-out-of-bounds" },
  "abort-binary": { core: "component-core-abort-binary" },
  "vector-echo": {},
  loop: {},
  "memory-bomb": {},
  trap: {},
  abort: {},
  "kv-delete": { world: "hook-kv" },
  "wasi-random": { world: "hook-wasi", extraWit: WASI_WIT },
};

const SRC = path.join(REPO_ROOT, "test", "fixtures", "components", "assembly");
export const COMPONENT_FIXTURES_OUT = path.join(REPO_ROOT, "build", "fixtures", "components");

/** Newest modification time among the fixture sources, the guest SDK and the WIT. */
function newestInput(): number {
  const dirs = [SRC, path.join(REPO_ROOT, "guest-sdk", "assembly"), path.join(REPO_ROOT, "guest-sdk", "assembly", "msgpack"), path.join(REPO_ROOT, "abi", "wit")];
  let t = 0;
  for (const dir of dirs) {
    for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isFile()) t = Math.max(t, statSync(path.join(dir, e.name)).mtimeMs);
  }
  return t;
}

/** Builds one fixture into build/fixtures/components/ when missing or older than its inputs; returns its bytes. */
export async function componentFixture(name: string): Promise<Uint8Array> {
  const how = COMPONENT_FIXTURES[name];
  if (!how) throw new Error(`no component fixture "${name}"`);
  const out = path.join(COMPONENT_FIXTURES_OUT, `${name}.wasm`);
  const watCore = how.core ? path.join(REPO_ROOT, "build", "fixtures", `${how.core}.wasm`) : undefined;
  const newest = Math.max(newestInput(), watCore ? statSync(watCore).mtimeMs : 0);
  if (existsSync(out) && statSync(out).mtimeMs >= newest) return new Uint8Array(readFileSync(out));
  const core = watCore ? new Uint8Array(readFileSync(watCore)) : await compileAssemblyScript({ entry: path.join(SRC, `${name}.ts`), optimize: "size" });
  const component = await wrapCore(core, how);
  mkdirSync(COMPONENT_FIXTURES_OUT, { recursive: true });
  writeFileSync(out, component);
  return component;
}
