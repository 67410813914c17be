import { readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";

/** Every TypeScript source under `dir` (.ts and .cts, not declarations), as absolute paths. */
export function sources(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) sources(p, out);
    else if (/\.c?ts$/.test(p) && !p.endsWith(".d.ts")) out.push(resolve(p));
  }
  return out;
}
