/** Operations: search on the server (outcome, error code, binding, plugin, space, agent session, time), one operation's phases, hooks, decisions and timings (digests only), replay. */
import { api, type Answer } from "../api.js";
import { clear, h, short, table, when } from "../dom.js";
import { gated } from "../session.js";
import type { Page } from "./page.js";

type Search = Answer<"/api/v1/operations">;
type Operation = Answer<"/api/v1/operations/{id}">["operation"];
type Skipped = NonNullable<Operation["skipped"]>;
type Audit = Answer<"/api/v1/audit">["items"][number];
/** A guest's log in an audit row: counts by level; the lines only while the payload store keeps them. */
type AuditLogs = NonNullable<Audit["logs"]>;
type ReplayResult = Answer<"/api/v1/operations/{id}/replay", "post">["replay"];
type Plugins = Answer<"/api/v1/plugins">;
const WHY: Record<Skipped[number]["reason"], string> = {
  disabled: "disabled in the release it ran on (it would have matched)",
  quarantined: "plugin quarantined: failed without running, its failure policy decided",
  not_matched: "its match does not admit this call",
};

/** "3 (2 info, 1 warn), 5 dropped". */
function logSummary(l: AuditLogs | null): string {
  if (!l) return "";
  const levels = Object.entries(l.levels).filter(([, n]) => n > 0).map(([k, n]) => `${n} ${k}`);
  return `${l.count}${levels.length ? ` (${levels.join(", ")})` : ""}${l.dropped ? `, ${l.dropped} dropped` : ""}`;
}

/** Each hook's kept log lines (guest text, shown as text), or why there are none to show. */
function logsView(audit: readonly Audit[]): HTMLElement | null {
  const logged = audit.filter((a) => a.logs);
  if (logged.length === 0) return null;
  return h("section", { "data-testid": "guest-logs" },
    h("h2", null, "Guest log"),
    logged.map((a) => h("div", null,
      h("h3", null, `${a.bindingId} (${a.hookRef}) at ${a.point}`),
      a.logs!.lines
        ? h("pre", null, a.logs!.lines.map((l) => `${l.level}: ${l.message}`).join("\n"))
        : h("p", { class: "content-note" }, `${logSummary(a.logs)}: the lines are kept only with the payload store on (serve --payload-store), like payload content.`))));
}


const PAGE = 50;

/** The search runs on the server (GET /api/v1/operations): exact counts over the whole store, one page at a time. */
function search(root: HTMLElement, fail: (e: unknown) => void): void {
  const outcome = h("select", { id: "op-outcome", name: "outcome" }, h("option", { value: "" }, "any"),
    [["succeeded", "succeeded"], ["rejected", "rejected by a hook"], ["asked", "asked for approval"], ["hook_failed", "failed in a hook"], ["call_failed", "failed in the real call"]].map(([v, label]) => h("option", { value: v }, label)));
  const code = h("input", { id: "op-code", name: "error_code", placeholder: "GUEST_TRAP", size: 16 });
  const binding = h("input", { id: "op-binding", name: "binding", size: 14 });
  const plugin = h("input", { id: "op-plugin", name: "plugin", placeholder: "id or id@version", size: 16 });
  const space = h("input", { id: "op-space", name: "space", size: 10 });
  const session = h("input", { id: "op-session", name: "run_id", size: 14 });
  const from = h("input", { id: "op-from", name: "from", type: "datetime-local" });
  const to = h("input", { id: "op-to", name: "to", type: "datetime-local" });
  const results = h("div", { "aria-live": "polite" });
  let offset = 0;
  const run = async (): Promise<void> => {
    const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    const set = (k: string, v: string) => { if (v.trim()) q.set(k, v.trim()); };
    set("outcome", outcome.value); set("error_code", code.value); set("binding", binding.value); set("plugin", plugin.value); set("space", space.value); set("run_id", session.value);
    if (from.value) q.set("from", String(Date.parse(from.value)));
    if (to.value) q.set("to", String(Date.parse(to.value)));
    const r = await api<Search>("GET", `/api/v1/operations?${q}`);
    const total = r.total ?? r.items.length;
    const pages = Math.max(1, Math.ceil(total / PAGE));
    clear(results,
      table("Operations, newest first", ["Operation", "Kind", "Space", "Agent session", "Point", "Phase", "Status", "Error", "Revision", "Started"],
        r.items.map((o) => [h("a", { href: `#/operations/${encodeURIComponent(o.operationId)}` }, h("code", { class: "id" }, o.operationId)), o.identity.operation, o.identity.ctx.spaceId, o.identity.ctx.runId ?? "", o.point, o.phase, o.realStatus,
          o.error ? o.error.code : o.outcome ?? "", `r${o.revision}`, when(o.createdAt)]), { "data-testid": "operations" }),
      h("div", { class: "pager" },
        h("button", { type: "button", class: "secondary", disabled: offset === 0, onclick: () => { offset -= PAGE; run().catch(fail); } }, "Previous"),
        h("span", { "data-testid": "operations-count" }, `page ${offset / PAGE + 1} of ${pages} (${total} operations${r.complete === false ? ", the newest searched" : ""})`),
        h("button", { type: "button", class: "secondary", disabled: offset + PAGE >= total, onclick: () => { offset += PAGE; run().catch(fail); } }, "Next")),
      // Records that did not open (changed or damaged at rest): their ids, never content.
      r.unreadable.length === 0 ? null : h("p", { class: "error", role: "status", "data-testid": "unreadable" },
        `${r.unreadable.length} record(s) could not be opened (${r.unreadable[0]!.code}): `, r.unreadable.map((u) => h("code", null, `${u.operation_id} `))));
  };
  const form = h("form", { class: "filters", onsubmit: (ev) => { ev.preventDefault(); offset = 0; run().catch(fail); } },
    h("label", { for: "op-outcome" }, "Outcome"), outcome, h("label", { for: "op-code" }, "Error code"), code,
    h("label", { for: "op-binding" }, "Binding"), binding, h("label", { for: "op-plugin" }, "Plugin"), plugin,
    h("label", { for: "op-space" }, "Space"), space, h("label", { for: "op-session" }, "Agent session"), session,
    h("label", { for: "op-from" }, "From"), from, h("label", { for: "op-to" }, "To"), to,
    h("button", { type: "submit", class: "primary" }, "Search"));
  clear(root, form, results);
  run().catch(fail);
}

/** A replay's answer as tables: per stage, each hook's recorded and replayed outcome, and what the output would change. */
function replayView(r: ReplayResult): HTMLElement {
  const said = (o: { outcome: string; error_code: string | null } | null) => (o ? `${o.outcome}${o.error_code ? ` (${o.error_code})` : ""}` : "did not run");
  return h("div", { "data-testid": "replay-result" },
    h("p", { class: r.changed ? "warn" : "ok", role: "status" }, r.changed ? `With ${r.replacement}, this operation would change (r${r.revision}).` : `With ${r.replacement}, nothing would change (r${r.revision}).`),
    r.stages.map((s) => table(`${s.point}: stop ${s.stop.recorded ?? "none"} → ${s.stop.replayed ?? "none"}`, ["Binding", "Plugin", "Recorded", "Replayed", "Changed"],
      s.hooks.map((x) => [x.binding_id, `${x.hook_ref}${x.replaced ? " (replaced)" : ""}`, said(x.recorded), said(x.replayed), x.changed ? "yes" : "no"]))),
    r.stages.some((s) => s.output.length) ? h("pre", null, JSON.stringify(r.stages.flatMap((s) => s.output), null, 2).slice(0, 20000)) : null);
}

function detail(root: HTMLElement, id: string, ctx: Parameters<Page>[1]): void {
  const out = h("div");
  clear(root, h("p", null, h("a", { href: "#/operations" }, "← all operations")), out);
  void (async () => {
    const [{ operation: o }, { items: audit }, plugins] = await Promise.all([
      api<Answer<"/api/v1/operations/{id}">>("GET", `/api/v1/operations/${encodeURIComponent(id)}`),
      api<Answer<"/api/v1/audit">>("GET", `/api/v1/audit?operation_id=${encodeURIComponent(id)}&limit=1000`),
      api<Plugins>("GET", "/api/v1/plugins"),
    ]);
    const replayOut = h("div", { "aria-live": "polite" });
    const ref = h("select", { id: "replay-ref" }, plugins.items.map((p) => h("option", { value: `${p.id}@${p.version}` }, `${p.id}@${p.version}`)));
    // The plugin this operation ran (its first hook's), so a replay starts from what happened.
    const ran = audit.find((a) => plugins.items.some((p) => `${p.id}@${p.version}` === a.hookRef));
    if (ran) ref.value = ran.hookRef;
    const replay = h("form", { class: "toolbar", onsubmit: async (ev) => {
      ev.preventDefault();
      try {
        const r = await api<Answer<"/api/v1/operations/{id}/replay", "post">>("POST", `/api/v1/operations/${encodeURIComponent(id)}/replay`, { hook_ref: ref.value });
        clear(replayOut, h("p", { class: "content-note" }, "Replay result (computed from the payload store's recorded inputs):"), replayView(r.replay));
      } catch (err) { clear(replayOut, ctx.errorBox(err)); }
    } }, h("label", { for: "replay-ref" }, "Replay with"), ref, h("button", { type: "submit", class: "secondary", ...gated("deployer") }, "Replay"));
    clear(out,
      h("dl", { class: "facts", "data-testid": "operation" },
        ...([["Operation", o.operationId], ["Kind", o.identity.operation], ["Space", o.identity.ctx.spaceId], ["Run", o.identity.ctx.runId ?? ""], ["Points", `${o.identity.beforePoint} → ${o.identity.afterPoint}`],
          ["Phase", o.phase], ["Real status", o.realStatus], ["Outcome", o.outcome ?? ""], ["Error", o.error ? `${o.error.code}: ${o.error.message}` : ""],
          ["Short-circuited by", o.shortCircuitedBy ?? ""], ["Revision", `r${o.revision}`], ["Attempts", String(o.attempts)], ["Started", when(o.createdAt)], ["Updated", when(o.updatedAt)],
          ["Final input", o.finalInputRef ? "stored (digest ref)" : "—"], ["Real result", o.realResultRef ? "stored (digest ref)" : "—"]] as [string, string][])
          .flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
      table("Hooks run (digests only; no content)", ["At", "Point", "Phase", "Binding", "Plugin", "Code", "Outcome", "Error", "ms", "Fuel", "Log", "Input", "Output", "Patch"],
        audit.map((a) => [when(a.at), a.point, a.phase, a.bindingId, a.hookRef, short(a.codeSha256), a.outcome, a.errorCode ?? "", a.durationMs.toFixed(2), a.fuel ?? "–", logSummary(a.logs ?? null), h("code", null, short(a.inputDigest)), h("code", null, short(a.outputDigest)), h("code", null, short(a.patchDigest))]),
        { "data-testid": "audit" }),
      table("Hooks skipped, and why", ["Point", "Binding", "Plugin", "Reason"],
        (o.skipped ?? []).map((x) => [x.point, x.bindingId, x.hookRef, h("span", { class: x.reason === "not_matched" ? "" : "warn", "data-reason": x.reason }, `${x.reason}: ${WHY[x.reason]}`)]),
        { "data-testid": "skipped" }),
      logsView(audit),
      h("h2", null, "Replay"),
      h("p", null, "Runs the recorded hook chain again with a stored plugin version; needs the payload store (serve --payload-store)."),
      replay, replayOut);
  })().catch((err) => out.replaceChildren(ctx.errorBox(err)));
}

export const operationsPage: Page = (root, ctx) => {
  if (ctx.param) detail(root, decodeURIComponent(ctx.param), ctx);
  else search(root, ctx.fail);
};
