/**
 * The operator console in a real browser (Debian's Chromium, headless) against a
 * real `sluice serve` on SQLite, walking an operator's tasks: a wrong token, sign in, r1
 * active, publish r2 and read its diff, activate it, disable an extension and see the next
 * operation skip it, a trapping plugin quarantined and lifted, the failed operation opened,
 * a gateway key created and revoked, roll back; and a page on another origin that cannot
 * drive the API. Every page is screenshotted (test/console/artifacts/) and checked with axe.
 */
import { readFileSync } from "node:fs";
import wabtInit from "wabt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launch, screenshot, seriousViolations, ARTIFACTS, type Browser } from "./browser.js";
import { apiCall, CONSOLE_TOKEN, otherOrigin, startServe, stubUpstream, uploadReferencePlugins, type Served } from "./fixtures.js";

let served: Served;
let upstream: Awaited<ReturnType<typeof stubUpstream>>;
let browser: Browser;
let page: Page;
const cspViolations: string[] = [];
let gatewayKey = "";

/** Logs two lines (one looks like markup and rings a bell), then continues. */
const LOGGER_WAT = `(module
  (import "sluice_v1" "log" (func $log (param i32 i32 i32)))
  (memory (export "memory") 1)
  (data (i32.const 16) "\\82\\a3abi\\a31.0\\a7outcome\\a8continue")
  (data (i32.const 64) "looked at the call")
  (data (i32.const 128) "<b>not markup</b> \\07")
  (global $next (mut i32) (i32.const 8192))
  (func (export "sluice_abi_v1_0"))
  (func (export "sluice_alloc") (param $n i32) (result i32)
    (local $p i32) (local.set $p (global.get $next))
    (global.set $next (i32.add (global.get $next) (local.get $n))) (local.get $p))
  (func (export "sluice_handle") (param i32 i32) (result i64)
    (call $log (i32.const 1) (i32.const 64) (i32.const 18))
    (call $log (i32.const 2) (i32.const 128) (i32.const 19))
    (i64.or (i64.shl (i64.const 16) (i64.const 32)) (i64.const 26))))`;

const api = <T = Record<string, unknown>>(method: string, route: string, body?: unknown) => apiCall<T>(served.api, method, route, body);
const chat = (content: string) => fetch(`${served.gateway}/v1/chat/completions`, {
  method: "POST", headers: { authorization: `Bearer ${gatewayKey}`, "content-type": "application/json" },
  body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
});
const go = async (hash: string) => { await page.goto(`${served.api}/console/#/${hash}`); };
async function checked(name: string): Promise<void> {
  const file = await screenshot(page, name);
  expect(await seriousViolations(page), `axe on ${name} (${file})`).toEqual([]);
}

beforeAll(async () => {
  upstream = await stubUpstream();
  served = await startServe(upstream.url);
  await uploadReferencePlugins(served.api);
  await api("POST", "/api/v1/releases", { activate: true, note: "reference plugins" });
  browser = await launch();
  page = browser.page;
  page.on("console", (m) => { if (/Content.Security.Policy/i.test(m.text())) cspViolations.push(m.text()); });
  process.stdout.write(`console screenshots: ${ARTIFACTS}\n`);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  await upstream?.close();
});

describe("the console in a browser", () => {
  it("is announced by sluice serve with its address", () => {
    expect(served.output()).toContain(`operator console: ${served.api}/console/ (sign in with the API token)`);
  });

  it("is served at /console under a strict CSP, with no script from elsewhere", async () => {
    const res = await fetch(`${served.api}/console/`);
    expect(res.status).toBe(200);
    const csp = res.headers.get("content-security-policy")!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    const html = await res.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    // The API behind it still wants the token.
    expect((await fetch(`${served.api}/api/v1/status`)).status).toBe(401);
  });

  it("shows the API's error for a wrong token, and keeps no token in a URL or cookie", async () => {
    await go("overview");
    await page.fill("#token", "wrong-token-0123456789abcdefghijklmnopq");
    await page.click("button[type=submit]");
    const error = page.locator(".error");
    await expect.poll(() => error.textContent()).toContain("UNAUTHORIZED");
    expect(await error.textContent()).toContain("wrong bearer token");
    await checked("sign-in-error");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it("signs in and shows r1 serving and active", async () => {
    await page.fill("#token", CONSOLE_TOKEN);
    await page.click("button[type=submit]");
    await expect.poll(() => page.locator("[data-testid=active-revision]").textContent(), { timeout: 10_000 }).toBe("r1");
    expect(await page.locator("[data-testid=serving-revision]").textContent()).toBe("r1");
    expect(page.url()).not.toContain(CONSOLE_TOKEN);
    expect(await browser.context.cookies()).toEqual([]);
    expect(await page.evaluate(() => [localStorage.length, sessionStorage.length])).toEqual([0, 1]);
    await expect.poll(() => page.locator("[data-testid=fleet]").textContent()).toContain("this host");
    await checked("overview");
  });

  it("publishes r2 and shows its diff field by field", async () => {
    await api("PUT", "/api/v1/bindings/clamp-order-search", { hook_ref: "order-search-limit@1.0.0", point: "tool.before", match: { tool_ids: ["orders.search"] }, config: { max_limit: 20 } });
    await api("DELETE", "/api/v1/bindings/redact-stream");
    await api("POST", "/api/v1/bindings", { id: "guard-prompts-strict", hook_ref: "prompt-guard@1.0.0", point: "model.chat.before", priority: 5, config: { deny: ["rm -rf"] } });
    await go("releases");
    await page.getByRole("button", { name: "Publish the draft" }).click();
    await expect.poll(() => page.locator("[role=status]").textContent()).toContain("Published r2");
    const diff = page.locator("[data-testid=diff]");
    await expect.poll(() => diff.locator("h2").textContent()).toBe("r1 → r2");
    expect(await page.locator("[data-testid=diff-added]").textContent()).toContain("guard-prompts-strict");
    expect(await page.locator("[data-testid=diff-removed]").textContent()).toContain("redact-stream");
    const changed = await page.locator("[data-testid=diff-changed]").textContent();
    expect(changed).toContain("clamp-order-search");
    expect(changed).toContain("/config/max_limit");
    expect(changed).toMatch(/50.*20/);
    await checked("releases");
  });

  it("activates r2 after a confirmation naming what changes, and the overview follows", async () => {
    await page.getByRole("button", { name: "Activate r2" }).click();
    const dialog = page.locator("dialog[open]");
    const text = await dialog.textContent();
    expect(text).toContain("r1 → r2");
    expect(text).toContain("adds guard-prompts-strict");
    expect(text).toContain("removes redact-stream");
    expect(text).toContain("clamp-order-search: config.max_limit 50 → 20");
    await screenshot(page, "releases-confirm");
    await dialog.getByRole("button", { name: "Activate r2" }).click();
    await expect.poll(async () => (await api<{ active_revision: number }>("GET", "/api/v1/releases")).active_revision).toBe(2);
    await go("overview");
    await expect.poll(() => page.locator("[data-testid=serving-revision]").textContent(), { timeout: 10_000 }).toBe("r2");
    expect(await page.locator("[data-testid=active-revision]").textContent()).toBe("r2");
  });

  it("creates a gateway key (shown once) for the operations that follow", async () => {
    await go("keys");
    await page.fill("#key-space", "acme");
    await page.fill("#key-name", "console test");
    await page.getByRole("button", { name: "Create key" }).click();
    gatewayKey = (await page.locator("[data-testid=new-key]").textContent())!;
    expect(gatewayKey.length).toBeGreaterThan(20);
    await expect.poll(() => page.locator("[data-testid=keys]").textContent()).toContain("acme");
    expect(await page.locator("[data-testid=keys]").textContent()).not.toContain(gatewayKey);
    await checked("keys");
  });

  it("disables an extension, and the next operation skips it", async () => {
    expect((await chat("What is the capital of France?")).status).toBe(200);
    await go("extensions");
    expect(await page.locator("[data-testid=interface-version]").textContent()).toMatch(/^\d+\.\d+/);
    await page.getByRole("button", { name: "Disable normalize-answer" }).click();
    expect(await page.locator("dialog[open]").textContent()).toContain("normalize-answer: enabled true → false");
    await page.locator("dialog[open]").getByRole("button", { name: "Disable" }).click();
    await expect.poll(() => page.getByRole("button", { name: "Enable normalize-answer" }).count()).toBe(1);
    expect(await page.locator("[data-testid=result-banner]").textContent()).toMatch(/Disabled normalize-answer \(enabled true → false\); active revision r2 → r3/);
    await checked("extensions");
    // Reorder: move the first extension down one place (a new revision, activated at once).
    const [first, second] = (await api<{ items: { extension_id: string }[] }>("GET", "/api/v1/pipeline/extensions")).items.map((i) => i.extension_id);
    await page.getByRole("button", { name: `Move ${first} down` }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Reorder" }).click();
    await expect.poll(async () => (await api<{ items: { extension_id: string }[] }>("GET", "/api/v1/pipeline/extensions")).items.slice(0, 2).map((i) => i.extension_id)).toEqual([second, first]);
    const { active_revision } = await api<{ active_revision: number }>("GET", "/api/v1/releases");
    expect(active_revision).toBe(4);
    await expect.poll(async () => (await api<{ serving_revision: number }>("GET", "/api/v1/status")).serving_revision).toBe(4);
    expect((await chat("And of Spain?")).status).toBe(200);
    await go("operations");
    const newest = page.locator("[data-testid=operations] tbody tr").first();
    await expect.poll(() => newest.textContent()).toContain("r4");
    await newest.locator("a").click();
    const audit = page.locator("[data-testid=audit]");
    await expect.poll(() => audit.textContent()).toContain("redact-answer");
    expect(await audit.textContent()).not.toContain("normalize-answer");
    await checked("operation");
    // The payload store is on: the operation replays with a stored plugin version.
    await page.selectOption("#replay-ref", "pii-redact@1.0.0");
    await page.getByRole("button", { name: "Replay" }).click();
    await expect.poll(() => page.locator("[data-testid=replay-result]").textContent()).toContain("pii-redact@1.0.0");
  });

  it("shows a trapping plugin quarantined with why, lifts it, and opens the failed operation", async () => {
    const wasm = readFileSync(new URL("../../build/fixtures/unreachable.wasm", import.meta.url));
    const manifest = `id: trapper\nversion: 1.0.0\nabi: "1.0"\nentry: unreachable.wat\npoints:\n  model.chat.before:\nlimits: { timeout_ms: 200 }\nfailure_policy: fail-closed\ncapability_boundary: none\nconfig_schema: { type: object }\n`;
    await api("POST", "/api/v1/plugins", { manifest, wasm_base64: wasm.toString("base64") });
    await api("POST", "/api/v1/bindings", { id: "trap", hook_ref: "trapper@1.0.0", point: "model.chat.before", priority: 1 });
    const { release } = await api<{ release: { revision: number } }>("POST", "/api/v1/releases", { activate: true });
    await expect.poll(async () => (await api<{ serving_revision: number }>("GET", "/api/v1/status")).serving_revision).toBe(release.revision);
    for (let i = 0; i < 5; i++) expect((await chat(`call ${i}`)).status).toBeGreaterThanOrEqual(500);
    await go("quarantine");
    const table = page.locator("[data-testid=quarantine]");
    await expect.poll(() => table.textContent()).toContain("trapper@1.0.0");
    expect(await table.textContent()).toContain("GUEST_TRAP");
    await checked("quarantine");
    await page.getByRole("button", { name: "Lift trapper@1.0.0" }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Lift" }).click();
    await expect.poll(() => table.textContent()).not.toContain("trapper@1.0.0");
    expect((await api<{ items: unknown[] }>("GET", "/api/v1/quarantine")).items).toEqual([]);

    await go("overview");
    await expect.poll(() => page.locator("[data-testid=errors-total]").textContent(), { timeout: 10_000 }).not.toBe("0");
    await expect.poll(() => page.locator("tbody tr", { hasText: "guard-prompts-strict" }).count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator("[data-testid=call-rate]").textContent(), { timeout: 10_000 }).toMatch(/^\d/);
    await checked("overview-live");

    await go("operations");
    const failed = page.locator("[data-testid=operations] tbody tr", { hasText: "HOOK_FAILED" }).or(page.locator("[data-testid=operations] tbody tr", { hasText: "GUEST_TRAP" })).first();
    await failed.locator("a").click();
    const audit = page.locator("[data-testid=audit]");
    await expect.poll(() => audit.textContent()).toContain("GUEST_TRAP");
    expect(await page.locator("[data-testid=operation]").textContent()).toContain("trap");
    await screenshot(page, "operation-failed");
  });

  it("shows the API's error on a page, never a blank page", async () => {
    await go("operations/no-such-operation");
    const error = page.locator(".error");
    await expect.poll(() => error.textContent()).toContain("OPERATION_NOT_FOUND");
    expect(await error.textContent()).toContain("no operation record no-such-operation");
  });

  it("shows plugin versions with digests, limits and fuel against the budget", async () => {
    await go("plugins");
    const plugins = page.locator("[data-testid=plugins]");
    const { items } = await api<{ items: { id: string; sha256: string }[] }>("GET", "/api/v1/plugins");
    await expect.poll(() => plugins.textContent()).toContain(items.find((p) => p.id === "pii-redact")!.sha256.slice(0, 16));
    expect(await plugins.textContent()).toContain("timeout_ms 200");
    // pii-redact ran at model.chat.after: its fuel per call against the default budget.
    expect(await plugins.locator("tr", { hasText: "pii-redact" }).textContent()).toMatch(/\d+ \/ \d+ of 5\.00e\+7 \(p99 [\d.]+ %, \d+ calls\)/);
    await checked("plugins");
  });

  it("rolls back after a confirmation", async () => {
    const before = await api<{ active_revision: number; activations: { revision: number }[] }>("GET", "/api/v1/releases");
    await go("releases");
    const previous = [...before.activations].reverse().find((a) => a.revision !== before.active_revision)!.revision;
    await page.getByRole("button", { name: `Roll back to r${previous}` }).click();
    expect(await page.locator("dialog[open]").textContent()).toContain(`r${before.active_revision} → r${previous}`);
    expect(await page.locator("dialog[open]").textContent()).toContain(`the draft is reset to r${previous}`);
    await page.locator("dialog[open]").getByRole("button", { name: `Roll back to r${previous}` }).click();
    await expect.poll(async () => (await api<{ active_revision: number }>("GET", "/api/v1/releases")).active_revision).toBe(previous);
    await expect.poll(() => page.locator("[data-testid=result-banner]").textContent()).toContain(`Rolled back: active revision r${before.active_revision} → r${previous}; the draft is reset to r${previous}`);
    await expect.poll(() => page.locator("[data-testid=active-marker]").count()).toBe(1);
  });

  it("revokes a gateway key", async () => {
    await go("keys");
    const prefix = (await api<{ keys: { prefix: string }[] }>("GET", "/api/v1/gateway/keys")).keys[0]!.prefix;
    await page.getByRole("button", { name: `Revoke ${prefix}` }).click();
    await page.locator("dialog[open]").getByRole("button", { name: "Revoke" }).click();
    await expect.poll(async () => (await chat("after revoke")).status).toBe(401);
  });

  it("opens an operation with a guest's log: its count by level in the hooks table, and its lines (the payload store is on)", async () => {
    const wabt = await wabtInit();
    const wasm = Buffer.from(wabt.parseWat("logger.wat", LOGGER_WAT).toBinary({}).buffer);
    const manifest = `id: logger\nversion: 1.0.0\nabi: "1.0"\nentry: logger.wat\npoints:\n  tool.before:\nfailure_policy: fail-open\ncapability_boundary: none\nconfig_schema: { type: object }\n`;
    await api("POST", "/api/v1/plugins", { manifest, wasm_base64: wasm.toString("base64") });
    await api("POST", "/api/v1/bindings", { id: "log-tools", hook_ref: "logger@1.0.0", point: "tool.before" });
    const { release } = await api<{ release: { revision: number } }>("POST", "/api/v1/releases", { activate: true });
    await expect.poll(async () => (await api<{ serving_revision: number }>("GET", "/api/v1/status")).serving_revision).toBe(release.revision);
    const called = await api<{ operation_id: string }>("POST", "/api/v1/call", { kind: "tool", tool_id: "orders.search", arguments: { limit: 5 } });
    await go(`operations/${encodeURIComponent(called.operation_id)}`);
    const audit = page.locator("[data-testid=audit]");
    await expect.poll(() => audit.textContent()).toContain("log-tools");
    expect(await audit.locator("tr", { hasText: "log-tools" }).textContent()).toContain("2 (1 info, 1 warn)");
    const logs = page.locator("[data-testid=guest-logs]");
    expect(await logs.locator("pre").textContent()).toBe("info: looked at the call\nwarn: <b>not markup</b> \\x07");
    // Guest text is text: nothing it holds became an element.
    expect(await logs.locator("b").count()).toBe(0);
    await checked("operation-guest-log");
  });

  it("loaded nothing the CSP had to block", () => {
    expect(cspViolations).toEqual([]);
  });
});

describe("a page on another origin", () => {
  it("cannot read or change anything through the API, even knowing the token", async () => {
    const before = await api<{ active_revision: number; activations: unknown[] }>("GET", "/api/v1/releases");
    const target = served.api;
    const evil = await otherOrigin(`<!doctype html><html><body>
<form id="f" method="POST" action="${target}/api/v1/releases/rollback" enctype="text/plain" target="sink"><input name='{"revision":1,"x":"' value='"}'></form>
<iframe name="sink" id="sink"></iframe>
<script>
window.results = {};
const token = ${JSON.stringify(CONSOLE_TOKEN)};
(async () => {
  try { const r = await fetch(${JSON.stringify(target)} + "/api/v1/releases", { headers: { authorization: "Bearer " + token } }); results.fetchRead = "status " + r.status; } catch (e) { results.fetchRead = "refused"; }
  try { const r = await fetch(${JSON.stringify(target)} + "/api/v1/releases/rollback", { method: "POST", headers: { authorization: "Bearer " + token, "content-type": "application/json" }, body: "{}" }); results.fetchWrite = "status " + r.status; } catch (e) { results.fetchWrite = "refused"; }
  try { await fetch(${JSON.stringify(target)} + "/api/v1/releases/rollback", { method: "POST", mode: "no-cors", headers: { "content-type": "text/plain" }, body: "{}" }); results.noCors = "sent"; } catch (e) { results.noCors = "refused"; }
  results.xhr = await new Promise((resolve) => { const x = new XMLHttpRequest(); x.open("GET", ${JSON.stringify(target)} + "/api/v1/status"); x.setRequestHeader("authorization", "Bearer " + token); x.onload = () => resolve("status " + x.status); x.onerror = () => resolve("refused"); x.send(); });
  document.getElementById("sink").onload = () => { results.form = "submitted"; };
  document.getElementById("f").submit();
})();
</script></body></html>`);
    const other = await browser.context.newPage();
    try {
      const fromApi: string[] = [];
      other.on("response", (r) => { if (r.url().startsWith(target)) fromApi.push(`${r.request().method()} ${r.status()}`); });
      await other.goto(evil.url);
      await expect.poll(() => other.evaluate(() => JSON.stringify((window as unknown as { results: Record<string, string> }).results)), { timeout: 10_000 }).toContain('"form":"submitted"');
      const results = await other.evaluate(() => (window as unknown as { results: Record<string, string> }).results);
      expect(results).toMatchObject({ fetchRead: "refused", fetchWrite: "refused", xhr: "refused" });
      // Every request that reached the server was refused there: the preflights, the no-cors POST and the form.
      expect(fromApi.length).toBeGreaterThan(0);
      for (const r of fromApi) expect(r).toMatch(/ 403$/);
    } finally {
      await other.close();
      await evil.close();
    }
    const after = await api<{ active_revision: number; activations: unknown[] }>("GET", "/api/v1/releases");
    expect(after.active_revision).toBe(before.active_revision);
    expect(after.activations.length).toBe(before.activations.length);
  });
});
