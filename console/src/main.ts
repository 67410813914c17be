/** The console's shell: sign-in, navigation (hash routes), and errors as the API gives them. */
import "./style.css";
import { api, ApiError, token } from "./api.js";
import { clear, h } from "./dom.js";
import { overviewPage } from "./pages/overview.js";
import { releasesPage } from "./pages/releases.js";
import { extensionsPage } from "./pages/extensions.js";
import { pluginsPage } from "./pages/plugins.js";
import { quarantinePage } from "./pages/quarantine.js";
import { operationsPage } from "./pages/operations.js";
import { keysPage } from "./pages/keys.js";
import { auditPage } from "./pages/audit.js";
import { tokensPage } from "./pages/tokens.js";
import { trendsPage } from "./pages/trends.js";
import { forget, whoami, type Whoami } from "./session.js";
import type { Page } from "./pages/page.js";

const PAGES: { path: string; title: string; page: Page }[] = [
  { path: "overview", title: "Overview", page: overviewPage },
  { path: "releases", title: "Releases", page: releasesPage },
  { path: "extensions", title: "Extensions", page: extensionsPage },
  { path: "plugins", title: "Plugins", page: pluginsPage },
  { path: "quarantine", title: "Quarantine", page: quarantinePage },
  { path: "operations", title: "Operations", page: operationsPage },
  { path: "trends", title: "Trends", page: trendsPage },
  { path: "keys", title: "Gateway keys", page: keysPage },
  { path: "audit", title: "Audit", page: auditPage },
  { path: "tokens", title: "API tokens", page: tokensPage },
];

const app = document.getElementById("app")!;
let stop: (() => void) | void;

/** An error box: the code, the message (which says the fix), and the details. */
export function errorBox(err: unknown): HTMLElement {
  const e = err instanceof ApiError ? err.data : { code: "CONSOLE_ERROR", message: String(err instanceof Error ? err.message : err) };
  const details = e.details && Object.keys(e.details).length ? JSON.stringify(e.details) : "";
  return h("div", { class: "error", role: "alert" },
    h("strong", { class: "code" }, e.code), " ", h("span", { class: "message" }, e.message),
    typeof e.details?.fix === "string" ? h("p", { class: "fix" }, `Fix: ${e.details.fix}`) : null,
    details ? h("pre", { class: "details" }, details.slice(0, 2000)) : null);
}

function signIn(error?: unknown): void {
  stop?.(); stop = undefined;
  forget();
  const input = h("input", { id: "token", type: "password", name: "token", autocomplete: "off", required: true, "aria-describedby": "token-help" });
  const status = h("div", { "aria-live": "polite" }, error ? errorBox(error) : null);
  const form = h("form", { class: "signin", onsubmit: (ev) => {
    ev.preventDefault();
    const t = input.value.trim();
    void api("GET", "/api/v1/status", undefined, t).then(() => { token.set(t); route(); }, (err) => clear(status, errorBox(err)));
  } },
  h("h1", null, "Sluice console"),
  h("label", { for: "token" }, "API token"),
  input,
  h("p", { id: "token-help", class: "help" }, "The server's SLUICE_TOKEN, --token-file, or the api-token file in its data folder. Kept for this tab only."),
  h("button", { type: "submit", class: "primary" }, "Sign in"),
  status);
  clear(app, h("main", { id: "main" }, form));
  input.focus();
}

function route(): void {
  if (!token.get()) return signIn();
  stop?.(); stop = undefined;
  // The role decides which actions are offered: known before any page draws.
  void whoami().then(draw, (err) => (err instanceof ApiError && (err.status === 401 || err.status === 429) ? (token.clear(), signIn(err)) : draw({ id: "?", name: "?", role: "viewer" })));
}

function draw(me: Whoami): void {
  const [path, ...rest] = location.hash.replace(/^#\/?/, "").split("/");
  const current = PAGES.find((p) => p.path === path) ?? PAGES[0]!;
  const nav = h("nav", { "aria-label": "Console pages" }, h("ul", null, PAGES.map((p) => h("li", null,
    h("a", { href: `#/${p.path}`, ...(p === current ? { "aria-current": "page" } : {}) }, p.title)))));
  const main = h("main", { id: "main" }, h("h1", null, current.title));
  const body = h("div", { class: "page" });
  main.append(body);
  clear(app, h("header", null, h("span", { class: "brand" }, "Sluice"), nav,
    h("span", { class: "who", "data-testid": "signed-in-as" }, `${me.name} (${me.role})`),
    h("button", { type: "button", class: "secondary", onclick: () => { token.clear(); signIn(); } }, "Sign out")), main);
  document.title = `${current.title} · Sluice console`;
  const fail = (err: unknown): void => {
    if (err instanceof ApiError && (err.status === 401 || err.status === 429)) { token.clear(); signIn(err); return; }
    body.prepend(errorBox(err));
  };
  try {
    stop = current.page(body, { param: rest.join("/"), fail, errorBox });
  } catch (err) { fail(err); }
}

addEventListener("hashchange", route);
route();
