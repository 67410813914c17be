/** Optional peer packages (the AssemblyScript compiler, jco): their pinned versions, and telling "not installed" from an error inside one. */
import { readFileSync } from "node:fs";

/** The exact version of an optional peer named in Sluice's own package.json. */
export function peerVersion(name: string): string {
  // From dist/host/ and host/ alike, at any depth, the first package.json above is Sluice's.
  for (let url = new URL("../../package.json", import.meta.url); ; url = new URL("../package.json", url)) {
    try {
      const pkg = JSON.parse(readFileSync(url, "utf8")) as { name?: string; peerDependencies?: Record<string, string> };
      if (pkg.name === "sluice") return pkg.peerDependencies?.[name] ?? "latest";
    } catch { /* not here: go up */ }
    if (url.pathname === "/package.json") return "latest";
  }
}

/** True when `err` is the loader saying `pkg` is not installed (not an error inside it). */
export function isMissingPackage(err: unknown, pkg: string): boolean {
  const e = err as { code?: string; message?: string } | undefined;
  return (e?.code === "ERR_MODULE_NOT_FOUND" || e?.code === "MODULE_NOT_FOUND") && (e.message ?? "").includes(`'${pkg}`);
}
