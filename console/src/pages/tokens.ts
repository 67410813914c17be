/** API tokens: the server's own (admin) and named ones with a role; create (the token is shown once) and revoke. Admin only. */
import { api, type Answer } from "../api.js";
import { clear, confirmDialog, h, table, when } from "../dom.js";
import { gated } from "../session.js";
import type { Page } from "./page.js";

type Tokens = Answer<"/api/v1/tokens">;
type Created = Answer<"/api/v1/tokens", "post", 201>;

export const tokensPage: Page = (root, ctx) => {
  const created = h("div", { "aria-live": "polite" });
  const list = h("div");
  const name = h("input", { id: "token-name", name: "name", required: true });
  const role = h("select", { id: "token-role", name: "role" }, ["viewer", "deployer", "admin"].map((r) => h("option", { value: r }, r)));
  const form = h("form", { class: "toolbar", onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      const t = await api<Created>("POST", "/api/v1/tokens", { name: name.value.trim(), role: role.value });
      clear(created, h("div", { class: "ok", role: "status" }, `New ${t.role} token "${t.name}" (shown once: copy it now): `, h("code", { "data-testid": "new-token" }, t.token)));
      await load();
    } catch (err) { clear(created, ctx.errorBox(err)); }
  } }, h("label", { for: "token-name" }, "Name"), name, h("label", { for: "token-role" }, "Role"), role, h("button", { type: "submit", class: "primary", ...gated("admin") }, "Create token"));
  clear(root, h("p", null, "viewer reads everything here; deployer also changes what serves; admin also manages tokens and gateway keys."), form, created, list);
  const load = async (): Promise<void> => {
    const { items } = await api<Tokens>("GET", "/api/v1/tokens");
    clear(list, table("API tokens", ["Name", "Role", "Prefix", "Created", "Revoked", ""],
      items.map((t) => [t.name, t.role, t.builtin ? "(the server's own token)" : h("code", null, t.prefix ?? ""), when(t.created_at), when(t.revoked_at),
        t.builtin || t.revoked_at ? "" : h("button", { type: "button", class: "danger", "aria-label": `Revoke ${t.name}`, ...gated("admin"), onclick: async () => {
          if (!(await confirmDialog(`Revoke the token "${t.name}"?`, [`token ${t.name}: ${t.role} → revoked`, "requests with it are refused from now on"], "Revoke"))) return;
          try {
            await api("DELETE", `/api/v1/tokens/${encodeURIComponent(t.id)}`);
            clear(created, h("p", { class: "ok", role: "status" }, `Revoked "${t.name}".`));
            await load();
          } catch (err) { list.prepend(ctx.errorBox(err)); }
        } }, "Revoke")]), { "data-testid": "tokens" }));
  };
  load().catch(ctx.fail);
};
