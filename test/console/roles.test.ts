/**
 * Operator tasks with named tokens, in a real browser (Debian's Chromium) against a real
 * `sluice serve`: a viewer cannot act; a deployer disables a guard (the confirmation says
 * "enabled true → false"), rolls back (the draft is reset) and publishes, and the change is
 * not resurrected; the audit names who acted, on its page and on each release; the
 * overview's fuel figures equal the audit rows'. Screenshots in test/console/artifacts/.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launch, screenshot, seriousViolations, type Browser } from "./browser.js";
import { apiCall, startServe, stubUpstream, uploadReferencePlugins, type Served } from "./fixtures.js";

let served: Served;
let upstream: Awaited<ReturnType<typeof stubUpstream>>;
let browser: Browser;
let page: Page;
let gatewayKey = "";
const tokens: Record<string, string> = {};

const api = <T = Record<string, unknown>>(method: string, route: string, body?: unknown, bearer?: string) => apiCall<T>(served.api, method, route, body, bearer);
const chat = (content: string) => fetch(`${served.gateway}/v1/chat/completions`, {
  method: "POST", headers: { authorization: `Bearer ${gatewayKey}`, "content-type": "application/json" },
  body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
});
const go = async (hash: string) => { await page.goto(`${served.api}/console/#/${hash}`); };
async function signInAs(name: string): Promise<void> {
  await go("overview");
  await page.evaluate(() => sessionStorage.clear());
  await page.reload();
  await page.fill("#token", tokens[name]!);
  await page.click("button[type=submit]");
  await expect.poll(() => page.locator("[data-testid=signed-in-as]").textContent(), { timeout: 10_000 }).toMatch(new RegExp(`^${name} \\(`));
}
async function checked(name: string): Promise<void> {
  const file = await screenshot(page, name);
  expect(await seriousViolations(page), `axe on ${name} (${file})`).toEqual([]);
}

beforeAll(async () => {
  upstream = await stubUpstream();
  served = await startServe(upstream.url);
  await uploadReferencePlugins(served.api);
  await api("POST", "/api/v1/releases", { activate: true, note: "reference plugins" });
  gatewayKey = (await api<{ key: string }>("POST", "/api/v1/gateway/keys", { space_id: "team-a" })).key;
  for (const [name, role] of [["watcher", "viewer"], ["ops-ana", "deployer"]] as const) {
    tokens[name] = (await api<{ token: string }>("POST", "/api/v1/tokens", { name, role })).token;
  }
  browser = await launch();
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  await upstream?.close();
});

describe("named tokens in the console", () => {
  it("a viewer reads every page but cannot act: the buttons say which role they need, and the API refuses with 403", async () => {
    await signInAs("watcher");
    expect(await page.locator("[data-testid=signed-in-as]").textContent()).toBe("watcher (viewer)");
    await go("extensions");
    const disable = page.getByRole("button", { name: "Disable guard-prompts" });
    await expect.poll(() => disable.count()).toBe(1);
    expect(await disable.isDisabled()).toBe(true);
    expect(await disable.getAttribute("title")).toBe("needs the deployer role; signed in as watcher (viewer)");
    await go("releases");
    await expect.poll(() => page.getByRole("button", { name: "Publish the draft" }).isDisabled()).toBe(true);
    await checked("roles-viewer-releases");
    const refused = await fetch(`${served.api}/api/v1/pipeline/extensions/guard-prompts`, { method: "PATCH", headers: { authorization: `Bearer ${tokens.watcher}`, "content-type": "application/json" }, body: JSON.stringify({ enabled: false }) });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("NEEDS_DEPLOYER_ROLE");
    await go("tokens");
    await expect.poll(() => page.locator(".error").textContent()).toContain("NEEDS_ADMIN_ROLE");
  });

  it("a deployer disables a guard after a confirmation with its direction, and sees the result", async () => {
    await signInAs("ops-ana");
    await go("extensions");
    await page.getByRole("button", { name: "Disable guard-prompts" }).click();
    const dialog = page.locator("dialog[open]");
    expect(await dialog.textContent()).toContain("guard-prompts: enabled true → false");
    await screenshot(page, "roles-disable-confirm");
    await dialog.getByRole("button", { name: "Disable" }).click();
    await expect.poll(() => page.locator("[data-testid=result-banner]").textContent()).toContain("Disabled guard-prompts (enabled true → false); active revision r1 → r2");
    await checked("roles-disabled");
  });

  it("a rollback shows the guard turning back on, resets the draft, and a publish after it does not resurrect the change", async () => {
    await go("releases");
    await page.getByRole("button", { name: "Roll back to r1" }).click();
    const dialog = page.locator("dialog[open]");
    const text = await dialog.textContent();
    expect(text).toContain("guard-prompts: enabled false → true");
    expect(text).toContain("the draft is reset to r1");
    await screenshot(page, "roles-rollback-confirm");
    await dialog.getByRole("button", { name: "Roll back to r1" }).click();
    await expect.poll(() => page.locator("[data-testid=result-banner]").textContent()).toContain("Rolled back: active revision r2 → r1; the draft is reset to r1");
    expect((await api<{ binding: { enabled: boolean } }>("GET", "/api/v1/bindings/guard-prompts")).binding.enabled).toBe(true);

    await page.getByRole("button", { name: "Publish the draft" }).click();
    await expect.poll(() => page.locator("[data-testid=result-banner]").textContent()).toContain("Published r3");
    const r3 = await api<{ release: { bindings: { id: string; enabled: boolean }[] } }>("GET", "/api/v1/releases/3");
    expect(r3.release.bindings.find((b) => b.id === "guard-prompts")!.enabled).toBe(true);
    await checked("roles-published-after-rollback");
  });

  it("the audit names who acted, on its page and on each release", async () => {
    await go("audit");
    const rows = page.locator("[data-testid=control-audit] tbody tr");
    await expect.poll(() => rows.count()).toBeGreaterThan(3);
    const byAction = async (action: string) => (await page.locator("[data-testid=control-audit] tbody tr", { hasText: action }).first().textContent()) ?? "";
    expect(await byAction("disable")).toContain("ops-ana");
    expect(await byAction("disable")).toContain("guard-prompts: enabled true → false");
    expect(await byAction("rollback")).toContain("ops-ana");
    expect(await byAction("token.create")).toContain("admin");
    expect(await page.locator("[data-testid=audit-count]").textContent()).toMatch(/\(\d+ actions\)/);
    await checked("roles-audit");

    await go("releases");
    await page.getByRole("button", { name: "Audit of r2" }).click();
    const r2 = page.locator("[data-testid=release-audit]");
    await expect.poll(() => r2.textContent()).toContain("disable");
    expect(await r2.textContent()).toContain("ops-ana");
    await screenshot(page, "roles-release-audit");
  });

  it("the overview's fuel figures are exactly the audit rows' percentiles", async () => {
    for (let i = 0; i < 5; i++) expect((await chat(`What is ${i} + 1?`)).status).toBe(200);
    const { items } = await api<{ items: { bindingId: string; fuel: number | null }[] }>("GET", "/api/v1/audit?limit=10000");
    const fuel = items.filter((a) => a.bindingId === "redact-answer" && a.fuel !== null).map((a) => a.fuel!).sort((a, b) => a - b);
    expect(fuel.length).toBe(5);
    const rank = (q: number) => fuel[Math.ceil(q * fuel.length) - 1]!;
    await go("overview");
    await expect.poll(() => page.locator("[data-testid=fuel-p50-redact-answer]").textContent(), { timeout: 10_000 }).toBe(String(rank(0.5)));
    expect(await page.locator("[data-testid=fuel-p99-redact-answer]").textContent()).toBe(String(rank(0.99)));
    await checked("roles-overview-figures");
  });

  it("a failed hook is found by its code, with an exact count and the full operation id", async () => {
    const wasm = readFileSync(new URL("../../build/fixtures/unreachable.wasm", import.meta.url));
    const manifest = `id: trapper\nversion: 1.0.0\nabi: "1.0"\nentry: unreachable.wat\npoints:\n  model.chat.before:\nlimits: { timeout_ms: 200 }\nfailure_policy: fail-closed\ncapability_boundary: none\nconfig_schema: { type: object }\n`;
    await api("POST", "/api/v1/plugins", { manifest, wasm_base64: wasm.toString("base64") });
    await api("POST", "/api/v1/bindings", { id: "trap", hook_ref: "trapper@1.0.0", point: "model.chat.before", priority: 1 });
    const { release } = await api<{ release: { revision: number } }>("POST", "/api/v1/releases", { activate: true });
    await expect.poll(async () => (await api<{ serving_revision: number }>("GET", "/api/v1/status")).serving_revision).toBe(release.revision);
    expect((await chat("this one traps")).status).toBeGreaterThanOrEqual(500);
    const found = await api<{ items: { operationId: string; error: { code: string } }[]; total: number }>("GET", "/api/v1/operations?error_code=GUEST_TRAP&outcome=hook_failed");
    expect(found.total).toBe(1);
    expect((await api<{ total: number }>("GET", "/api/v1/operations?outcome=succeeded")).total).toBe(5);

    await go("operations");
    await page.fill("#op-code", "GUEST_TRAP");
    await page.selectOption("#op-outcome", "hook_failed");
    await page.getByRole("button", { name: "Search" }).click();
    await expect.poll(() => page.locator("[data-testid=operations-count]").textContent()).toBe("page 1 of 1 (1 operations)");
    const row = page.locator("[data-testid=operations] tbody tr").first();
    expect(await row.locator("code.id").textContent()).toBe(found.items[0]!.operationId);
    await checked("roles-failed-hook-found");
    await row.locator("a").click();
    await expect.poll(() => page.locator("[data-testid=audit]").textContent()).toContain("GUEST_TRAP");
    // Replay starts from the plugin the operation ran.
    expect(await page.locator("#replay-ref").inputValue()).toBe("trapper@1.0.0");
  });
});
