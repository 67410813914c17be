/** A few lines instead of a framework: elements are built with textContent only (no HTML strings), so nothing a plugin or an API answer says is ever parsed as markup. */
type Child = Node | string | number | null | undefined | false;
type Attr = string | number | boolean | undefined | null | ((event: Event) => void);

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, Attr> | null, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (typeof v === "function") el.addEventListener(k.replace(/^on/, ""), v);
    else if (k === "value" && "value" in el) (el as HTMLInputElement).value = String(v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(typeof c === "object" ? c : String(c));
  return el;
}

export function clear(el: Element, ...children: (Child | Child[])[]): void {
  el.replaceChildren();
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(typeof c === "object" ? c : String(c));
}

/** A table with a caption for screen readers and one header row. */
export function table(caption: string, head: string[], rows: (Child | Child[])[][], attrs: Record<string, Attr> = {}): HTMLTableElement {
  return h("table", attrs,
    h("caption", null, caption),
    h("thead", null, h("tr", null, head.map((c) => h("th", { scope: "col" }, c)))),
    h("tbody", null, rows.length ? rows.map((r) => h("tr", null, r.map((c) => h("td", null, c)))) : h("tr", null, h("td", { colspan: head.length, class: "empty" }, "none"))));
}

export function short(digest: string | null | undefined, n = 12): string {
  return digest ? digest.slice(0, n) : "";
}

export function when(ms: number | string | null | undefined): string {
  if (ms === null || ms === undefined) return "";
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? String(ms) : d.toISOString().replace("T", " ").replace(/\.\d+Z$/, "Z");
}

/** A modal confirmation naming what changes; resolves true on confirm. */
export function confirmDialog(title: string, lines: string[], action: string): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = h("dialog", { "aria-labelledby": "confirm-title", class: "confirm" },
      h("h2", { id: "confirm-title" }, title),
      h("ul", null, lines.map((l) => h("li", null, l))),
      h("div", { class: "actions" },
        h("button", { type: "button", class: "secondary", onclick: () => { dialog.close(); resolve(false); } }, "Cancel"),
        h("button", { type: "button", class: "primary", onclick: () => { dialog.close(); resolve(true); } }, action)));
    dialog.addEventListener("close", () => { dialog.remove(); resolve(false); });
    document.body.append(dialog);
    dialog.showModal();
  });
}
