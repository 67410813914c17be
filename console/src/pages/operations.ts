/** Operations: search (status, phase, point, space, time), one operation's phases, hooks, decisions and timings (digests only), replay. */
import { api } from "../api.js";
import { clear, h, short, table, when } from "../dom.js";
import { paginate, type Page } from "./page.js";

interface Operation { operationId: string; identity: { operation: string; beforePoint: string; afterPoint: string; ctx: { spaceId: string; runId?: string; actorId?: string } }; point: string; phase: string; realStatus: string; revision: number; outcome: string | null; error: { code: string; message: string } | null; shortCircuitedBy: string | null; attempts: number; createdAt: number; updatedAt: number; completed: { point: string; bindingId: string }[]; finalInputRef: string | null; realResultRef: string | null; effectiveOutputRef: string | null }
interface Audit { bindingId: string; hookRef: string; codeSha256: string; point: string; phase: string; revision: number; outcome: string; inputDigest: string; outputDigest: string; patchDigest: string | null; durationMs: number; fuel: number | null; errorCode: string | null; at: number }

const select = (id: string, options: string[]) => h("select", { id, name: id }, h("option", { value: "" }, "any"), options.map((o) => h("option", { value: o }, o)));

function search(root: HTMLElement, fail: (e: unknown) => void): void {
  const status = select("op-status", ["not_started", "running", "succeeded", "failed", "unknown"]);
  const phase = select("op-phase", ["before", "operation", "after", "finished"]);
  const point = h("input", { id: "op-point", name: "point", placeholder: "model.chat.before" });
  const space = h("input", { id: "op-space", name: "space" });
  const from = h("input", { id: "op-from", name: "from", type: "datetime-local" });
  const to = h("input", { id: "op-to", name: "to", type: "datetime-local" });
  const results = h("div", { "aria-live": "polite" });
  const run = async (): Promise<void> => {
    const q = new URLSearchParams({ limit: "1000" });
    if (status.value) q.set("real_status", status.value);
    if (phase.value) q.set("phase", phase.value);
    const { items, unreadable } = await api<{ items: Operation[]; unreadable: { operation_id: string; code: string }[] }>("GET", `/api/v1/operations?${q}`);
    const t0 = from.value ? Date.parse(from.value) : -Infinity;
    const t1 = to.value ? Date.parse(to.value) : Infinity;
    const p = point.value.trim();
    const s = space.value.trim();
    const hits = items.filter((o) => (!p || o.point === p || o.identity.beforePoint === p || o.identity.afterPoint === p) && (!s || o.identity.ctx.spaceId === s) && o.createdAt >= t0 && o.createdAt < t1);
    clear(results, paginate(hits, 20, (slice) => table("Operations, newest first", ["Operation", "Kind", "Space", "Point", "Phase", "Status", "Outcome", "Revision", "Started"],
      slice.map((o) => [h("a", { href: `#/operations/${encodeURIComponent(o.operationId)}` }, o.operationId.slice(0, 13)), o.identity.operation, o.identity.ctx.spaceId, o.point, o.phase, o.realStatus,
        o.error ? `${o.error.code}` : o.outcome ?? "", `r${o.revision}`, when(o.createdAt)]), { "data-testid": "operations" }), "Operations"),
      // Records that did not open (changed or damaged at rest): their ids, never content.
      unreadable.length === 0 ? null : h("p", { class: "error", role: "status", "data-testid": "unreadable" },
        `${unreadable.length} record(s) could not be opened (${unreadable[0]!.code}): `, unreadable.map((u) => h("code", null, `${u.operation_id} `))));
  };
  const form = h("form", { class: "filters", onsubmit: (ev) => { ev.preventDefault(); run().catch(fail); } },
    h("label", { for: "op-status" }, "Status"), status, h("label", { for: "op-phase" }, "Phase"), phase,
    h("label", { for: "op-point" }, "Point"), point, h("label", { for: "op-space" }, "Space"), space,
    h("label", { for: "op-from" }, "From"), from, h("label", { for: "op-to" }, "To"), to,
    h("button", { type: "submit", class: "primary" }, "Search"));
  clear(root, form, results);
  run().catch(fail);
}

function detail(root: HTMLElement, id: string, ctx: Parameters<Page>[1]): void {
  const out = h("div");
  clear(root, h("p", null, h("a", { href: "#/operations" }, "← all operations")), out);
  void (async () => {
    const [{ operation: o }, { items: audit }, plugins] = await Promise.all([
      api<{ operation: Operation }>("GET", `/api/v1/operations/${encodeURIComponent(id)}`),
      api<{ items: Audit[] }>("GET", `/api/v1/audit?operation_id=${encodeURIComponent(id)}&limit=1000`),
      api<{ items: { id: string; version: string }[] }>("GET", "/api/v1/plugins"),
    ]);
    const replayOut = h("div", { "aria-live": "polite" });
    const ref = h("select", { id: "replay-ref" }, plugins.items.map((p) => h("option", { value: `${p.id}@${p.version}` }, `${p.id}@${p.version}`)));
    const replay = h("form", { class: "toolbar", onsubmit: async (ev) => {
      ev.preventDefault();
      try {
        const r = await api<{ replay: unknown }>("POST", `/api/v1/operations/${encodeURIComponent(id)}/replay`, { hook_ref: ref.value });
        clear(replayOut, h("p", { class: "content-note" }, "Replay result (computed from the payload store's recorded inputs):"), h("pre", { "data-testid": "replay-result" }, JSON.stringify(r.replay, null, 2).slice(0, 20000)));
      } catch (err) { clear(replayOut, ctx.errorBox(err)); }
    } }, h("label", { for: "replay-ref" }, "Replay with"), ref, h("button", { type: "submit", class: "secondary" }, "Replay"));
    clear(out,
      h("dl", { class: "facts", "data-testid": "operation" },
        ...([["Operation", o.operationId], ["Kind", o.identity.operation], ["Space", o.identity.ctx.spaceId], ["Run", o.identity.ctx.runId ?? ""], ["Points", `${o.identity.beforePoint} → ${o.identity.afterPoint}`],
          ["Phase", o.phase], ["Real status", o.realStatus], ["Outcome", o.outcome ?? ""], ["Error", o.error ? `${o.error.code}: ${o.error.message}` : ""],
          ["Short-circuited by", o.shortCircuitedBy ?? ""], ["Revision", `r${o.revision}`], ["Attempts", String(o.attempts)], ["Started", when(o.createdAt)], ["Updated", when(o.updatedAt)],
          ["Final input", o.finalInputRef ? "stored (digest ref)" : "—"], ["Real result", o.realResultRef ? "stored (digest ref)" : "—"]] as [string, string][])
          .flatMap(([k, v]) => [h("dt", null, k), h("dd", null, v)])),
      table("Hooks run (digests only; no content)", ["At", "Point", "Phase", "Binding", "Plugin", "Code", "Outcome", "Error", "ms", "Fuel", "Input", "Output", "Patch"],
        audit.map((a) => [when(a.at), a.point, a.phase, a.bindingId, a.hookRef, short(a.codeSha256), a.outcome, a.errorCode ?? "", a.durationMs.toFixed(2), a.fuel ?? "–", h("code", null, short(a.inputDigest)), h("code", null, short(a.outputDigest)), h("code", null, short(a.patchDigest))]),
        { "data-testid": "audit" }),
      h("h2", null, "Replay"),
      h("p", null, "Runs the recorded hook chain again with a stored plugin version; needs the payload store (serve --payload-store)."),
      replay, replayOut);
  })().catch((err) => out.replaceChildren(ctx.errorBox(err)));
}

export const operationsPage: Page = (root, ctx) => {
  if (ctx.param) detail(root, decodeURIComponent(ctx.param), ctx);
  else search(root, ctx.fail);
};
