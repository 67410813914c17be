import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The file of a worker thread's entry `name` beside the module at `moduleUrl`. Node 20
 * cannot start a worker from a .ts file, so when that module runs from source (under
 * vitest) the entry is taken from the compiled tree (dist/) that `npm install` builds.
 */
export function threadFile(moduleUrl: string, name: string): string {
  const file = fileURLToPath(new URL(name, moduleUrl));
  if (!moduleUrl.endsWith(".ts")) return file;
  const root = fileURLToPath(new URL("../../", import.meta.url));
  return path.join(root, "dist", path.relative(root, file));
}
