export interface PageContext {
  /** The rest of the hash route after the page's name (an operation id, ...). */
  param: string;
  /** Shows an API error on the page (or the sign-in form, for a token the server refused). */
  fail(err: unknown): void;
  errorBox(err: unknown): HTMLElement;
}

/** Renders into `root`; returns a function that stops its timers. */
export type Page = (root: HTMLElement, ctx: PageContext) => (() => void) | void;

/** Runs `load` now and every `ms`, showing the last error in `status` instead of a blank page. */
export function poll(ms: number, load: () => Promise<void>, ctx: PageContext, status: HTMLElement): () => void {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const tick = async (): Promise<void> => {
    try { await load(); status.replaceChildren(); } catch (err) { status.replaceChildren(ctx.errorBox(err)); if ((err as { status?: number }).status === 401) return ctx.fail(err); }
    if (!stopped) timer = setTimeout(() => void tick(), ms);
  };
  void tick();
  return () => { stopped = true; clearTimeout(timer); };
}

/** Pages of `size` items with Previous/Next buttons. */
export function paginate<T>(items: T[], size: number, render: (slice: T[]) => HTMLElement, label: string): HTMLElement {
  const wrap = document.createElement("div");
  let page = 0;
  const draw = (): void => {
    const pages = Math.max(1, Math.ceil(items.length / size));
    page = Math.min(page, pages - 1);
    const prev = document.createElement("button");
    prev.type = "button"; prev.className = "secondary"; prev.textContent = "Previous"; prev.disabled = page === 0;
    prev.onclick = () => { page--; draw(); };
    const next = document.createElement("button");
    next.type = "button"; next.className = "secondary"; next.textContent = "Next"; next.disabled = page >= pages - 1;
    next.onclick = () => { page++; draw(); };
    const info = document.createElement("span");
    info.textContent = `${label}: page ${page + 1} of ${pages} (${items.length})`;
    const bar = document.createElement("div");
    bar.className = "pager";
    bar.append(prev, info, next);
    wrap.replaceChildren(render(items.slice(page * size, (page + 1) * size)), bar);
  };
  draw();
  return wrap;
}
