/** Which compiler a plugin needs: hook.yaml's `language`, or else its entry's file name. */
import type { GuestLanguage, Manifest } from "../registry/manifest.js";

/** `.rs` or `Cargo.toml`: Rust; `.c`: C; anything else (`.ts`): AssemblyScript. */
export function languageOf(m: Pick<Manifest, "language" | "entry">): GuestLanguage {
  if (m.language !== undefined) return m.language;
  if (m.entry.endsWith(".rs") || m.entry.endsWith("Cargo.toml")) return "rust";
  if (m.entry.endsWith(".c")) return "c";
  return "assemblyscript";
}
