/** Overview: the revision each host serves, quarantined plugins, call and error rates, per-hook latency and fuel; polled every 2 s. */
import { api } from "../api.js";
import { clear, h, table, when } from "../dom.js";
import { poll, type Page } from "./page.js";

interface Status { active_revision: number; serving_revision: number; serving_since: string | null; loading_revision: number | null; release_error: { code: string; message: string } | null; sdk_interface_version: string; plugins: number; bindings: number; releases: number }
interface FleetHost { host_id: string; url: string; active_revision: number; serving_revision: number; release_error: string | null; seen_at: string }
interface Summary { at: string; calls: number; errors: number; hooks: { point: string; binding: string; calls: number; failed: number; p50_ms: number | null; p99_ms: number | null; fuel_p50: number | null; fuel_p99: number | null }[] }

const num = (v: number | null) => (v === null ? "–" : v >= 1e5 ? v.toExponential(2) : String(Math.round(v * 100) / 100));

export const overviewPage: Page = (root, ctx) => {
  const status = h("div", { "aria-live": "polite" });
  const cards = h("section", { class: "cards", "aria-label": "This host" });
  const fleet = h("section", { "aria-label": "Hosts" });
  const quarantined = h("section", { "aria-label": "Quarantined plugins" });
  const hooks = h("section", { "aria-label": "Hooks" });
  clear(root, status, cards, fleet, quarantined, hooks);
  let last: { at: number; calls: number; errors: number } | undefined;
  return poll(2000, async () => {
    const [s, f, q, m] = await Promise.all([
      api<Status>("GET", "/api/v1/status"),
      api<{ this_host: string; shared: boolean; items: FleetHost[] }>("GET", "/api/v1/fleet"),
      api<{ items: { ref: string; failures: number; lastError: { code: string } }[] }>("GET", "/api/v1/quarantine"),
      api<Summary>("GET", "/api/v1/metrics/summary"),
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
    clear(quarantined, table("Quarantined plugins", ["Plugin", "Failures", "Last error"], q.items.map((x) => [h("a", { href: "#/quarantine" }, x.ref), x.failures, x.lastError.code])));
    clear(hooks, table("Hooks since this host started (p50/p99 estimated from the histogram buckets)", ["Point", "Binding", "Calls", "Failed", "p50 ms", "p99 ms", "Fuel p50", "Fuel p99"],
      m.hooks.map((x) => [x.point, x.binding, x.calls, x.failed, num(x.p50_ms), num(x.p99_ms), num(x.fuel_p50), num(x.fuel_p99)])));
  }, ctx, status);
};
