/** Quarantine: why each plugin is quarantined (the failures that tripped it and the last error), and lift. */
import { api, type Answer } from "../api.js";
import { clear, confirmDialog, h, table, when } from "../dom.js";
import type { Page } from "./page.js";
import { gated } from "../session.js";


export const quarantinePage: Page = (root, ctx) => {
  const out = h("div", { "aria-live": "polite" });
  clear(root, out);
  const load = async (): Promise<void> => {
    const { items } = await api<Answer<"/api/v1/quarantine">>("GET", "/api/v1/quarantine");
    clear(out, table("Quarantined plugins", ["Plugin", "Since", "Until", "Failures in the window", "Last error", ""],
      items.map((q) => [q.ref, when(q.since), q.until === null ? "until lifted" : when(q.until), q.failures,
        h("span", null, h("strong", null, q.lastError.code), " ", q.lastError.message),
        h("button", { type: "button", class: "primary", "aria-label": `Lift ${q.ref}`, ...gated("deployer"), onclick: async () => {
          if (!(await confirmDialog(`Lift the quarantine of ${q.ref}?`, [`its bindings run again from the next operation`], "Lift"))) return;
          try { await api("DELETE", `/api/v1/quarantine/${encodeURIComponent(q.ref)}`); await load(); } catch (err) { out.prepend(ctx.errorBox(err)); }
        } }, "Lift")]), { "data-testid": "quarantine" }));
  };
  load().catch(ctx.fail);
};
