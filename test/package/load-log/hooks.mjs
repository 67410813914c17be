// Module hooks (run on the loader thread): append every URL the ESM loader resolves to
// the file named by SLUICE_LOAD_LOG, so a test can see what an import pulled in.
import { appendFileSync } from "node:fs";

export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(process.env.SLUICE_LOAD_LOG, resolved.url + "\n");
  return resolved;
}
