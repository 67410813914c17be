/** Gateway keys: create (the key is shown once) and revoke. */
import { api, type Answer } from "../api.js";
import { clear, confirmDialog, h, table, when } from "../dom.js";
import { paginate, type Page } from "./page.js";
import { gated } from "../session.js";

type Keys = Answer<"/api/v1/gateway/keys">;
type Created = Answer<"/api/v1/gateway/keys", "post", 201>;

export const keysPage: Page = (root, ctx) => {
  const created = h("div", { "aria-live": "polite" });
  const list = h("div");
  const space = h("input", { id: "key-space", name: "space", required: true });
  const name = h("input", { id: "key-name", name: "name" });
  const form = h("form", { class: "toolbar", onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      const k = await api<Created>("POST", "/api/v1/gateway/keys", { space_id: space.value.trim(), ...(name.value.trim() ? { name: name.value.trim() } : {}) });
      clear(created, h("div", { class: "ok", role: "status" }, "New key for ", h("strong", null, k.space_id), " (shown once: copy it now): ", h("code", { "data-testid": "new-key" }, k.key)));
      await load();
    } catch (err) { clear(created, ctx.errorBox(err)); }
  } }, h("label", { for: "key-space" }, "Space"), space, h("label", { for: "key-name" }, "Name"), name, h("button", { type: "submit", class: "primary", ...gated("admin") }, "Create key"));
  clear(root, form, created, list);
  const load = async (): Promise<void> => {
    const { keys } = await api<Keys>("GET", "/api/v1/gateway/keys");
    clear(list, paginate(keys, 25, (slice) => table("Gateway keys", ["Prefix", "Space", "Name", "Created", "Revoked", ""],
      slice.map((k) => [h("code", null, k.prefix), k.space_id, k.name ?? "", when(k.created_at), when(k.revoked_at),
        k.revoked_at ? "" : h("button", { type: "button", class: "danger", "aria-label": `Revoke ${k.prefix}`, ...gated("admin"), onclick: async () => {
          if (!(await confirmDialog(`Revoke key ${k.prefix}…?`, [`requests of space ${k.space_id} with this key are refused from now on`], "Revoke"))) return;
          try { await api("DELETE", `/api/v1/gateway/keys/${encodeURIComponent(k.id)}`); await load(); } catch (err) { list.prepend(ctx.errorBox(err)); }
        } }, "Revoke")]), { "data-testid": "keys" }), "Keys"));
  };
  load().catch(ctx.fail);
};
