/** Audit: every control action, newest first, with who acted (the token's name), when and what changed; filter by action and revision. */
import { api, type Answer } from "../api.js";
import { clear, h, table, when } from "../dom.js";
import type { Page } from "./page.js";

export type ControlAuditPage = Answer<"/api/v1/control-audit">;
export type ControlEntry = ControlAuditPage["items"][number];

const ACTIONS = ["upload", "bind", "unbind", "binding.set", "enable", "disable", "publish", "activate", "rollback", "deploy", "quarantine.lift", "key.create", "key.revoke", "token.create", "token.revoke"];
const PAGE = 50;

const said = (v: unknown): string => (v === null || v === undefined ? "none" : typeof v === "string" ? v : JSON.stringify(v));

/** "guard-prompts: enabled true → false", one line per changed value. */
export function changeLines(e: ControlEntry): HTMLElement {
  return h("ul", { class: "plain" }, e.changes.map((c) => h("li", null, `${c.path} ${said(c.from)} → ${said(c.to)}`)));
}

export function auditTable(caption: string, items: ControlEntry[], testid: string): HTMLTableElement {
  return table(caption, ["At", "Action", "By", "Role", "Target", "Revision", "What changed"],
    items.map((e) => [when(e.at), h("strong", null, e.action), h("span", { "data-testid": "actor" }, e.token_name), e.role, e.target ?? "", e.revision === null ? "" : `r${e.revision}`, changeLines(e)]),
    { "data-testid": testid });
}

export const auditPage: Page = (root, ctx) => {
  const action = h("select", { id: "audit-action", name: "action" }, h("option", { value: "" }, "any"), ACTIONS.map((a) => h("option", { value: a }, a)));
  const revision = h("input", { id: "audit-revision", name: "revision", inputmode: "numeric", size: 6 });
  const results = h("div", { "aria-live": "polite" });
  let offset = 0;
  const run = async (): Promise<void> => {
    const q = new URLSearchParams({ limit: String(PAGE), offset: String(offset) });
    if (action.value) q.set("action", action.value);
    if (revision.value.trim()) q.set("revision", revision.value.trim().replace(/^r/, ""));
    const page = await api<ControlAuditPage>("GET", `/api/v1/control-audit?${q}`);
    const pages = Math.max(1, Math.ceil(page.total / PAGE));
    clear(results, auditTable("Control actions, newest first", page.items, "control-audit"),
      h("div", { class: "pager" },
        h("button", { type: "button", class: "secondary", disabled: offset === 0, onclick: () => { offset -= PAGE; run().catch(ctx.fail); } }, "Previous"),
        h("span", { "data-testid": "audit-count" }, `page ${offset / PAGE + 1} of ${pages} (${page.total} actions)`),
        h("button", { type: "button", class: "secondary", disabled: offset + PAGE >= page.total, onclick: () => { offset += PAGE; run().catch(ctx.fail); } }, "Next")));
  };
  const form = h("form", { class: "filters", onsubmit: (ev) => { ev.preventDefault(); offset = 0; run().catch(ctx.fail); } },
    h("label", { for: "audit-action" }, "Action"), action, h("label", { for: "audit-revision" }, "Revision"), revision,
    h("button", { type: "submit", class: "primary" }, "Filter"));
  clear(root, h("p", null, "Who changed what serves, or who may act: each action with the API token's name, the time and what changed."), form, results);
  run().catch(ctx.fail);
};
