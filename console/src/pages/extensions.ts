/**
 * Extensions: the active release's list in order, enable/disable and reorder. Each changes
 * the serving release at once (a new revision), so each shows the change with its direction,
 * asks first, and says what happened.
 */
import { api, type Answer } from "../api.js";
import { clear, confirmDialog, h, short, table } from "../dom.js";
import { gated } from "../session.js";
import type { Page } from "./page.js";

type List = Answer<"/api/v1/pipeline/extensions">;
type Item = List["items"][number];
/** What enable, disable or reorder changed (both routes answer the same shape). */
type Change = Answer<"/api/v1/pipeline/order", "put">;

export const extensionsPage: Page = (root, ctx) => {
  const banner = h("div", { "aria-live": "polite" });
  const out = h("div");
  clear(root, banner, out);
  /** Asks with `lines`, acts, then shows the revision that serves now beside the one before. */
  const act = async (title: string, lines: string[], action: string, from: number, f: () => Promise<Change>, done: string): Promise<void> => {
    if (!(await confirmDialog(title, [...lines, `serving release: a new revision is activated at once (now r${from})`], action))) return;
    try {
      const change = await f();
      clear(banner, h("p", { class: "ok", role: "status", "data-testid": "result-banner" }, `${done}; active revision r${from} → r${change.revision}.`));
      await load();
    } catch (err) { clear(banner, ctx.errorBox(err)); }
  };
  const load = async (): Promise<void> => {
    const list = await api<List>("GET", "/api/v1/pipeline/extensions");
    const ids = list.items.map((i) => i.extension_id);
    const move = (i: number, by: number) => {
      const order = [...ids];
      const [x] = order.splice(i, 1);
      order.splice(i + by, 0, x!);
      return act(`Move ${x}?`, [`order: ${ids.join(" → ")}  ⇒  ${order.join(" → ")}`], "Reorder", list.revision,
        () => api<Change>("PUT", "/api/v1/pipeline/order", { order }), `Moved ${x}`);
    };
    const toggle = (it: Item) => act(`${it.enabled ? "Disable" : "Enable"} ${it.extension_id}?`, [`${it.extension_id}: enabled ${it.enabled} → ${!it.enabled}`],
      it.enabled ? "Disable" : "Enable", list.revision,
      () => api<Answer<"/api/v1/pipeline/extensions/{id}", "patch">>("PATCH", `/api/v1/pipeline/extensions/${encodeURIComponent(it.extension_id)}`, { enabled: !it.enabled }),
      `${it.enabled ? "Disabled" : "Enabled"} ${it.extension_id} (enabled ${it.enabled} → ${!it.enabled})`);
    clear(out,
      h("p", null, `Active release r${list.revision} · order mode ${list.order_mode} · SDK interface version `, h("strong", { "data-testid": "interface-version" }, list.sdk_interface_version)),
      table("Extensions in order", ["#", "Extension", "Pair", "Plugin", "Point", "Type", "Priority", "Failure policy", "Code", "State", "", "Order"],
        list.items.map((it, i) => [i + 1, it.extension_id, it.pair_id, it.hook_ref, it.node_id, it.hook_type, it.priority, it.failure_policy, short(it.code_sha256), it.enabled ? "enabled" : h("strong", null, "disabled"),
          h("button", { type: "button", class: it.enabled ? "secondary" : "primary", "aria-label": `${it.enabled ? "Disable" : "Enable"} ${it.extension_id}`, disabled: it.mandatory && it.enabled, ...gated("deployer"),
            onclick: () => void toggle(it) }, it.enabled ? "Disable" : "Enable"),
          h("span", { class: "move" },
            h("button", { type: "button", class: "secondary", "aria-label": `Move ${it.extension_id} up`, disabled: i === 0, ...gated("deployer"), onclick: () => void move(i, -1) }, "↑"),
            h("button", { type: "button", class: "secondary", "aria-label": `Move ${it.extension_id} down`, disabled: i === ids.length - 1, ...gated("deployer"), onclick: () => void move(i, 1) }, "↓"))]),
        { "data-testid": "extensions" }));
  };
  load().catch(ctx.fail);
};
