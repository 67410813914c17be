/** Plugins: versions, digests, limits, grants and capabilities, and fuel per call (p50/p99) against the budget. */
import { api } from "../api.js";
import { clear, h, short, table, when } from "../dom.js";
import { paginate, type Page } from "./page.js";

interface Plugin { id: string; version: string; sha256: string; size: number; created_at: string; manifest: { limits: Record<string, number>; capabilities: string[]; points: Record<string, { read?: string[]; write?: string[] } | null>; failure_policy: string } }
interface Hook { binding: string; calls: number; fuel_p50: number | null; fuel_p99: number | null; p99_ms: number | null }

export const pluginsPage: Page = (root, ctx) => {
  const out = h("div");
  clear(root, out);
  const load = async (): Promise<void> => {
    const [plugins, ext, metrics] = await Promise.all([
      api<{ items: Plugin[] }>("GET", "/api/v1/plugins"),
      api<{ items: { extension_id: string; hook_ref: string }[] }>("GET", "/api/v1/pipeline/extensions"),
      api<{ hooks: Hook[]; default_fuel_budget: number }>("GET", "/api/v1/metrics/summary"),
    ]);
    const byBinding = new Map(metrics.hooks.map((m) => [m.binding, m]));
    const fuelOf = (ref: string) => {
      const hooks = ext.items.filter((e) => e.hook_ref === ref).map((e) => byBinding.get(e.extension_id)).filter((m): m is Hook => m !== undefined && m.fuel_p50 !== null);
      if (!hooks.length) return null;
      return { p50: Math.max(...hooks.map((m) => m.fuel_p50 ?? 0)), p99: Math.max(...hooks.map((m) => m.fuel_p99 ?? 0)) };
    };
    const fmt = (n: number) => (n >= 1e5 ? n.toExponential(2) : String(Math.round(n)));
    const items = [...plugins.items].sort((a, b) => a.id.localeCompare(b.id) || b.created_at.localeCompare(a.created_at));
    clear(out, paginate(items, 25, (slice) => table("Plugin versions", ["Plugin", "Version", "sha256", "Size", "Limits", "Grants", "Capabilities", "Fuel p50 / p99 of budget", "Uploaded"],
      slice.map((p) => {
        const ref = `${p.id}@${p.version}`;
        const f = fuelOf(ref);
        const budget = p.manifest.limits.fuel ?? metrics.default_fuel_budget;
        const grants = Object.entries(p.manifest.points).map(([point, g]) => `${point}${g?.write?.length ? ` writes ${g.write.join(" ")}` : g?.read?.length ? " reads" : ""}`);
        return [p.id, p.version, h("code", { title: p.sha256 }, short(p.sha256, 16)), `${(p.size / 1024).toFixed(1)} KiB`,
          Object.entries(p.manifest.limits).map(([k, v]) => `${k} ${v}`).join(", "),
          h("ul", { class: "plain" }, grants.map((g) => h("li", null, g))),
          p.manifest.capabilities.join(", ") || "none",
          f ? `${fmt(f.p50)} / ${fmt(f.p99)}${budget ? ` of ${fmt(budget)} (${((f.p99 / budget) * 100).toFixed(1)} %)` : ""}` : budget ? `– of ${fmt(budget)}` : "–",
          when(p.created_at)];
      }), { "data-testid": "plugins" }), "Plugin versions"));
  };
  load().catch(ctx.fail);
};
