/** Releases: the list, a diff between any two revisions, publish, activate and roll back (each confirmed with what changes). */
import { api, type Answer } from "../api.js";
import { clear, confirmDialog, h, table, when } from "../dom.js";
import { diffReleases, summarize, type Release, type ReleaseDiff } from "../diff.js";
import { gated } from "../session.js";
import { auditTable, type ControlAuditPage } from "./audit.js";
import { paginate, type Page } from "./page.js";

type List = Answer<"/api/v1/releases">;
type Published = Answer<"/api/v1/releases", "post", 201>;

const show = (v: unknown) => (v === undefined ? "—" : JSON.stringify(v));

export function diffView(d: ReleaseDiff): HTMLElement {
  return h("section", { class: "diff", "aria-label": `Changes from r${d.from} to r${d.to}`, "data-testid": "diff" },
    h("h2", null, `r${d.from} → r${d.to}`),
    table("Bindings added", ["Binding", "Plugin", "Point", "Priority", "Config"], d.added.map((b) => [b.id, String(b.hook_ref), String(b.point), String(b.priority), show(b.config)]), { "data-testid": "diff-added" }),
    table("Bindings removed", ["Binding", "Plugin", "Point"], d.removed.map((b) => [b.id, String(b.hook_ref), String(b.point)]), { "data-testid": "diff-removed" }),
    table("Bindings changed", ["Binding", "Field", `r${d.from}`, `r${d.to}`], d.changed.flatMap((c) => c.fields.map((f) => [c.id, f.path, show(f.from), show(f.to)])), { "data-testid": "diff-changed" }),
    h("p", { "data-testid": "diff-order" }, d.order ? `Order: ${d.order.from.join(" → ")}  ⇒  ${d.order.to.join(" → ")}` : "Order: unchanged"),
    h("p", { "data-testid": "diff-order-mode" }, d.orderMode ? `Order mode: ${d.orderMode.from} → ${d.orderMode.to}` : "Order mode: unchanged"));
}

export const releasesPage: Page = (root, ctx) => {
  const banner = h("div", { "aria-live": "polite" });
  const out = h("div");
  clear(root, banner, out);
  const said = (line: string, ok = true) => clear(banner, h("p", { class: ok ? "ok" : "warn", role: "status", "data-testid": "result-banner" }, line));
  const load = async (): Promise<void> => {
    const [list, audit] = await Promise.all([api<List>("GET", "/api/v1/releases"), api<ControlAuditPage>("GET", "/api/v1/control-audit?limit=1000")]);
    const auditOf = (revision: number) => audit.items.filter((e) => e.revision === revision);
    const who = (revision: number) => auditOf(revision).map((e) => `${e.action} by ${e.token_name}`).join(", ");
    const byRev = new Map(list.items.map((r) => [r.revision, r]));
    const revs = [...list.items].sort((a, b) => b.revision - a.revision);
    const active = byRev.get(list.active_revision);
    const act = async (target: Release, verb: "Activate" | "Roll back to"): Promise<void> => {
      const lines = [...(active ? summarize(diffReleases(active, target)) : [`activates r${target.revision} (nothing is active now)`]),
        ...(verb === "Roll back to" ? [`the draft is reset to r${target.revision}, so the next publish starts from it`] : [])];
      if (!(await confirmDialog(`${verb} r${target.revision}? (r${list.active_revision} → r${target.revision})`, lines, verb === "Activate" ? `Activate r${target.revision}` : `Roll back to r${target.revision}`))) return;
      try {
        if (verb === "Activate") await api("POST", `/api/v1/releases/${target.revision}/activate`);
        else await api("POST", "/api/v1/releases/rollback", { revision: target.revision });
        await load();
        said(verb === "Activate" ? `Activated: active revision r${list.active_revision} → r${target.revision}.` : `Rolled back: active revision r${list.active_revision} → r${target.revision}; the draft is reset to r${target.revision}.`);
      } catch (err) { clear(banner, ctx.errorBox(err)); }
    };
    const previous = [...list.activations].reverse().find((a) => a.revision !== list.active_revision);
    const fromSel = h("select", { id: "diff-from" }, revs.map((r) => h("option", { value: r.revision }, `r${r.revision}`)));
    const toSel = h("select", { id: "diff-to" }, revs.map((r) => h("option", { value: r.revision }, `r${r.revision}`)));
    const latest = revs[0];
    fromSel.value = String(list.active_revision || latest?.revision || "");
    toSel.value = String(latest?.revision ?? "");
    if (fromSel.value === toSel.value && revs[1]) fromSel.value = String(revs[1].revision);
    const diffOut = h("div");
    const drawDiff = (): void => {
      const a = byRev.get(Number(fromSel.value));
      const b = byRev.get(Number(toSel.value));
      clear(diffOut, a && b ? diffView(diffReleases(a, b)) : h("p", null, "Publish a revision to compare."));
    };
    fromSel.onchange = drawDiff;
    toSel.onchange = drawDiff;
    const publish = async (): Promise<void> => {
      try {
        const r = await api<Published>("POST", "/api/v1/releases", {});
        await load();
        said(r.created ? `Published r${r.release.revision} (not active yet; serving stays r${list.active_revision}).` : `The draft equals r${r.release.revision}: nothing published.`);
      } catch (err) { clear(banner, ctx.errorBox(err)); }
    };
    const selected = h("div");
    const showAudit = (revision: number) => clear(selected, auditTable(`Control actions on r${revision}`, auditOf(revision), "release-audit"));
    clear(out,
      h("div", { class: "toolbar" },
        h("button", { type: "button", class: "primary", ...gated("deployer"), onclick: () => void publish() }, "Publish the draft"),
        previous ? h("button", { type: "button", class: "secondary", ...gated("deployer"), onclick: () => { const t = byRev.get(previous.revision); if (t) void act(t, "Roll back to"); } }, `Roll back to r${previous.revision}`) : null),
      paginate(revs, 20, (slice) => table("Revisions", ["Revision", "State", "Bindings", "Order mode", "Based on", "Note", "Created", "Who", ""],
        slice.map((r) => [`r${r.revision}`, r.revision === list.active_revision ? h("strong", { "data-testid": "active-marker" }, "active") : "", r.bindings.length, r.order_mode, r.based_on ? `r${r.based_on}` : "", r.note, when(r.created_at),
          h("button", { type: "button", class: "secondary", "aria-label": `Audit of r${r.revision}: ${who(r.revision) || "—"}`, onclick: () => showAudit(r.revision) }, who(r.revision) || "—"),
          r.revision === list.active_revision ? "" : h("button", { type: "button", class: "secondary", "aria-label": `Activate r${r.revision}`, ...gated("deployer"), onclick: () => void act(r, "Activate") }, "Activate")]),
        { "data-testid": "releases" }), "Revisions"),
      selected,
      h("h2", null, "Compare revisions"),
      h("div", { class: "toolbar" }, h("label", { for: "diff-from" }, "From"), fromSel, h("label", { for: "diff-to" }, "To"), toSel),
      diffOut,
      table("Activations (newest first)", ["#", "Revision", "Reason", "At"], [...list.activations].reverse().slice(0, 20).map((a) => [a.seq, `r${a.revision}`, a.reason, when(a.activated_at)])));
    drawDiff();
  };
  load().catch(ctx.fail);
};
