/** Plugins: versions, digests, limits, grants and capabilities, and fuel per call (p50/p99) against the budget. */
import { api, type Answer } from "../api.js";
import { clear, h, short, table, when } from "../dom.js";
import { paginate, type Page } from "./page.js";


export const pluginsPage: Page = (root, ctx) => {
  const out = h("div");
  clear(root, out);
  const load = async (): Promise<void> => {
    // Exact per-call fuel from the audit records (each hook run's fuel; the first 5000 runs kept).
    const [plugins, audit, metrics] = await Promise.all([
      api<Answer<"/api/v1/plugins">>("GET", "/api/v1/plugins"),
      api<Answer<"/api/v1/audit">>("GET", "/api/v1/audit?limit=5000"),
      api<Answer<"/api/v1/metrics/summary">>("GET", "/api/v1/metrics/summary"),
    ]);
    const fuelByRef = new Map<string, number[]>();
    for (const a of audit.items) if (a.fuel !== null) fuelByRef.set(a.hookRef, [...(fuelByRef.get(a.hookRef) ?? []), a.fuel]);
    const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
    const fuelOf = (ref: string) => {
      const used = [...(fuelByRef.get(ref) ?? [])].sort((a, b) => a - b);
      return used.length ? { p50: quantile(used, 0.5), p99: quantile(used, 0.99), calls: used.length } : null;
    };
    const fmt = (n: number) => (n >= 1e5 ? n.toExponential(2) : String(Math.round(n)));
    const items = [...plugins.items].sort((a, b) => a.id.localeCompare(b.id) || b.created_at.localeCompare(a.created_at));
    clear(out, paginate(items, 25, (slice) => table("Plugin versions", ["Plugin", "Version", "sha256", "Size", "Limits", "Grants", "Capabilities", "Fuel per call p50 / p99 of budget", "Uploaded"],
      slice.map((p) => {
        const ref = `${p.id}@${p.version}`;
        const f = fuelOf(ref);
        const budget = p.manifest.limits.fuel ?? metrics.default_fuel_budget;
        const grants = Object.entries(p.manifest.points).map(([point, g]) => `${point}${g?.write?.length ? ` writes ${g.write.join(" ")}` : g?.read?.length ? " reads" : ""}`);
        return [p.id, p.version, h("code", { title: p.sha256 }, short(p.sha256, 16)), `${(p.size / 1024).toFixed(1)} KiB`,
          Object.entries(p.manifest.limits).map(([k, v]) => `${k} ${v}`).join(", "),
          h("ul", { class: "plain" }, grants.map((g) => h("li", null, g))),
          p.manifest.capabilities.join(", ") || "none",
          f ? `${fmt(f.p50)} / ${fmt(f.p99)} of ${fmt(budget)} (p99 ${((f.p99 / budget) * 100).toFixed(2)} %, ${f.calls} calls)` : `no calls recorded; budget ${fmt(budget)}`,
          when(p.created_at)];
      }), { "data-testid": "plugins" }), "Plugin versions"));
  };
  load().catch(ctx.fail);
};
