/**
 * Overview: the revision each host serves, quarantined plugins with what they now block,
 * call and error rates, and per-hook run time and fuel: exact percentiles of the audit rows
 * (GET /api/v1/hook-figures), never a histogram's bucket edges. Polled every 2 s.
 */
import { api, type Answer } from "../api.js";
import { clear, h, table, when } from "../dom.js";
import { poll, type Page } from "./page.js";

type Figures = Answer<"/api/v1/hook-figures">;
type Extensions = Answer<"/api/v1/pipeline/extensions">;
type Extension = Extensions["items"][number];

/** What a quarantined plugin now does to traffic: each binding of it in the active release, by its failure policy. */
export function blocks(ref: string, extensions: Extension[]): string[] {
  const mine = extensions.filter((e) => e.hook_ref === ref && e.enabled);
  if (mine.length === 0) return ["bound nowhere in the active release: blocks nothing"];
  return mine.map((e) => (e.failure_policy === "fail-closed"
    ? `BLOCKS every call at ${e.node_id} that ${e.extension_id} matches (fail-closed)`
    : `skipped at ${e.node_id} (${e.extension_id}, ${e.failure_policy}): calls go on without it`));
}


const num = (v: number | null) => (v === null ? "–" : v >= 1e5 ? v.toExponential(2) : String(Math.round(v * 100) / 100));

export const overviewPage: Page = (root, ctx) => {
  const status = h("div", { "aria-live": "polite" });
  const cards = h("section", { class: "cards", "aria-label": "This host" });
  const fleet = h("section", { "aria-label": "Hosts" });
  const quarantined = h("section", { "aria-label": "Quarantined plugins", "data-testid": "quarantined" });
  const hooks = h("section", { "aria-label": "Hooks" });
  clear(root, status, cards, fleet, quarantined, hooks);
  let last: { at: number; calls: number; errors: number } | undefined;
  return poll(2000, async () => {
    const [s, f, q, m, figures, ext] = await Promise.all([
      api<Answer<"/api/v1/status">>("GET", "/api/v1/status"),
      api<Answer<"/api/v1/fleet">>("GET", "/api/v1/fleet"),
      api<Answer<"/api/v1/quarantine">>("GET", "/api/v1/quarantine"),
      api<Answer<"/api/v1/metrics/summary">>("GET", "/api/v1/metrics/summary"),
      api<Figures>("GET", "/api/v1/hook-figures"),
      api<Extensions>("GET", "/api/v1/pipeline/extensions"),
    ]);
    const now = Date.parse(m.at);
    const rate = (n: number, prev: number | undefined) => (last && now > last.at && prev !== undefined ? ((n - prev) / ((now - last.at) / 1000)).toFixed(2) : "–");
    const callRate = rate(m.calls, last?.calls);
    const errorRate = rate(m.errors, last?.errors);
    last = { at: now, calls: m.calls, errors: m.errors };
    const card = (label: string, value: string | number, id: string) => h("div", { class: "card" }, h("div", { class: "label", id: `${id}-label` }, label), h("div", { class: "value", "aria-labelledby": `${id}-label`, "data-testid": id }, String(value)));
    clear(cards,
      card("Serving revision", `r${s.serving_revision}`, "serving-revision"),
      card("Active revision", `r${s.active_revision}`, "active-revision"),
      card("Calls / s", callRate, "call-rate"),
      card("Errors / s", errorRate, "error-rate"),
      card("Calls (total)", m.calls, "calls-total"),
      card("Errors (total)", m.errors, "errors-total"),
      card("Plugins · bindings · releases", `${s.plugins} · ${s.bindings} · ${s.releases}`, "counts"),
      card("SDK interface", s.sdk_interface_version, "sdk"));
    if (s.release_error) cards.append(h("p", { class: "warn" }, `Not serving r${s.active_revision}: ${s.release_error.code}: ${s.release_error.message}`));
    clear(fleet, table(f.shared ? "Hosts on this database" : "This host (SQLite: one host)", ["Host", "API", "Serving", "Active", "Release error", "Seen"],
      f.items.map((x) => [x.host_id === f.this_host ? `${x.host_id.slice(0, 8)} (this host)` : x.host_id.slice(0, 8), x.url, `r${x.serving_revision}`, `r${x.active_revision}`, x.release_error ?? "", when(x.seen_at)]), { "data-testid": "fleet" }));
    clear(quarantined,
      q.items.length ? h("div", { class: "error", role: "alert", "data-testid": "quarantine-alert" }, h("strong", null, `${q.items.length} plugin(s) quarantined`), " — their hooks do not run; see what that means for traffic below.") : null,
      table("Quarantined plugins", ["Plugin", "Failures", "Last error", "What it now blocks"], q.items.map((x) => [h("a", { href: "#/quarantine" }, h("strong", null, x.ref)), x.failures, x.lastError.code,
        h("ul", { class: "plain" }, blocks(x.ref, ext.items).map((line) => h("li", null, line)))])));
    clear(hooks, table(`Hooks: exact p50/p99 over ${figures.rows} recorded run(s)${figures.complete ? "" : " (the newest rows beyond the limit left out)"}`, ["Point", "Binding", "Plugin", "Runs", "Failed", "p50 ms", "p99 ms", "Fuel p50", "Fuel p99"],
      figures.hooks.map((x) => [x.point, x.binding, x.hook_ref, x.runs, x.failed, num(x.p50_ms), num(x.p99_ms), h("span", { "data-testid": `fuel-p50-${x.binding}` }, num(x.fuel_p50)), h("span", { "data-testid": `fuel-p99-${x.binding}` }, num(x.fuel_p99))]),
      { "data-testid": "hook-figures" }));
  }, ctx, status);
};
