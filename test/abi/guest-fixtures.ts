import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { compileAssemblyScript, GUEST_SDK_DIR, REPO_ROOT } from "../../host/toolchain/assemblyscript.js";

function newestSdkChange(dir = GUEST_SDK_DIR): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSdkChange(p) : statSync(p).mtimeMs);
  }
  return newest;
}

/**
 * The wasm of an AssemblyScript fixture in test/fixtures/guests/. scripts/build.mjs puts
 * it in build/fixtures/; when that copy is missing or older than its sources (a test run
 * without `npm run build`), it is compiled here instead.
 */
export async function guestFixture(name: string): Promise<Uint8Array<ArrayBuffer>> {
  const source = path.join(REPO_ROOT, "test", "fixtures", "guests", `${name}.ts`);
  const built = path.join(REPO_ROOT, "build", "fixtures", `${name}.wasm`);
  if (existsSync(built) && statSync(built).mtimeMs >= Math.max(statSync(source).mtimeMs, newestSdkChange())) {
    return new Uint8Array(readFileSync(built));
  }
  return compileAssemblyScript({ entry: source });
}
