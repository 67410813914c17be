/**
 * Trends, usage and skipped hooks in a real browser (Debian's Chromium) against a real
 * `sluice serve`: an operation that skipped a disabled hook, or a quarantined one, names it
 * and why (and `sluice operation <id> --skipped` too); the Trends
 * page draws charts of a seeded range whose figures equal the audit rows' own; usage per
 * space and per gateway key shows exact counts. Screenshots in test/console/artifacts/.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { launch, screenshot, seriousViolations, type Browser } from "./browser.js";
import { apiCall, startServe, stubUpstream, uploadReferencePlugins, type Served } from "./fixtures.js";
import { sluice } from "../cli/run-cli.js";
import { until } from "../helpers/until.js";

interface AuditRow { bindingId: string; point: string; hookRef: string; durationMs: number; fuel: number | null; errorCode: string | null; at: number }

let served: Served;
let upstream: Awaited<ReturnType<typeof stubUpstream>>;
let browser: Browser;
let page: Page;
let viewer = "";
const keys: Record<string, string> = {};
let from = 0;
let to = 0;

const api = <T = Record<string, unknown>>(method: string, route: string, body?: unknown) => apiCall<T>(served.api, method, route, body);
const chat = (key: string, content: string) => fetch(`${served.gateway}/v1/chat/completions`, {
  method: "POST", headers: { authorization: `Bearer ${keys[key]}`, "content-type": "application/json" },
  body: JSON.stringify({ model: "m", messages: [{ role: "user", content }] }),
});
const go = async (hash: string) => { await page.goto(`${served.api}/console/#/${hash}`); };
async function checked(name: string): Promise<void> {
  const file = await screenshot(page, name);
  expect(await seriousViolations(page), `axe on ${name} (${file})`).toEqual([]);
}
/** The body rows of a table, as the text of each cell. */
const cells = (testId: string) => page.locator(`[data-testid=${testId}] tbody tr`).evaluateAll((rows) => rows.map((r) => Array.from(r.querySelectorAll("td"), (td) => td.textContent ?? "")));

/** What the page prints for a figure: exact, rounded to three decimals only for display. */
const shown = (v: number | null) => (v === null ? "–" : String(Math.round(v * 1000) / 1000));
const rank = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? null : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
};

beforeAll(async () => {
  upstream = await stubUpstream();
  served = await startServe(upstream.url);
  await uploadReferencePlugins(served.api);
  // A guard for another team's space only: never matches these calls.
  await api("POST", "/api/v1/bindings", { id: "guard-team-z", hook_ref: "prompt-guard@1.0.0", point: "model.chat.before", match: { spaces: ["team-z"] }, config: { deny: ["x"] } });
  await api("POST", "/api/v1/releases", { activate: true, note: "reference plugins" });
  for (const [name, space] of [["alpha", "team-a"], ["beta", "team-b"]] as const) {
    keys[name] = (await api<{ key: string }>("POST", "/api/v1/gateway/keys", { space_id: space, name })).key;
  }
  viewer = (await api<{ token: string }>("POST", "/api/v1/tokens", { name: "watcher", role: "viewer" })).token;
  // The answer normaliser is switched off: a new revision, active at once.
  await api("PATCH", "/api/v1/pipeline/extensions/normalize-answer", { enabled: false });
  const { active_revision } = await api<{ active_revision: number }>("GET", "/api/v1/releases");
  expect(await until(async () => (await api<{ serving_revision: number }>("GET", "/api/v1/status")).serving_revision === active_revision)).toBe(true);
  from = Date.now();
  for (const q of ["What is the capital of France?", "And of Spain?", "And of Italy?"]) expect((await chat("alpha", q)).status).toBe(200);
  expect((await chat("alpha", "please drop table users")).status).toBe(403);
  for (const q of ["Largest planet?", "Smallest planet?"]) expect((await chat("beta", q)).status).toBe(200);
  to = Date.now() + 1;
  browser = await launch();
  page = browser.page;
  await go("overview");
  await page.fill("#token", viewer);
  await page.click("button[type=submit]");
  expect(await until(async () => (await page.locator("[data-testid=signed-in-as]").textContent()) === "watcher (viewer)")).toBe(true);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await served?.stop();
  await upstream?.close();
});

describe("trends, usage and skipped hooks in the console", () => {
  it("an operation that skipped a disabled hook shows it, with the reason, on its page and in the CLI", async () => {
    const { items: [newest] } = await api<{ items: { operationId: string }[] }>("GET", "/api/v1/operations?limit=1");
    await go(`operations/${encodeURIComponent(newest!.operationId)}`);
    const skipped = page.locator("[data-testid=skipped]");
    await expect.poll(() => skipped.textContent()).toContain("normalize-answer");
    const rows = await cells("skipped");
    expect(rows.find((r) => r[1] === "normalize-answer")).toEqual(["model.chat.after", "normalize-answer", "answer-normalize@1.0.0", "disabled: disabled in the release it ran on (it would have matched)"]);
    expect(rows.find((r) => r[1] === "guard-team-z")).toEqual(["model.chat.before", "guard-team-z", "prompt-guard@1.0.0", "not_matched: its match does not admit this call"]);
    // The hooks that ran are not among them, nor bindings at points a chat never reaches.
    expect(rows.map((r) => r[1])).not.toContain("guard-prompts");
    expect(rows.map((r) => r[1])).not.toContain("clamp-order-search");
    await checked("operation-skipped");
    const cli = await sluice(["operation", newest!.operationId, "--skipped", "--url", served.api], { SLUICE_TOKEN: viewer });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toMatch(/model\.chat\.after\s+normalize-answer\s+answer-normalize@1\.0\.0\s+disabled/);
  });

  it("the trends page draws charts of a seeded range whose figures equal the audit rows' own", async () => {
    const { items: audit } = await api<{ items: AuditRow[] }>("GET", `/api/v1/audit?from=${from}&to=${to}&limit=10000`);
    const bucketMs = Math.ceil((to - from) / 3);
    const starts = [from, from + bucketMs, from + 2 * bucketMs].filter((s) => s < to);
    const mine = audit.filter((a) => a.bindingId === "guard-prompts");
    expect(mine).toHaveLength(6);
    await go(`trends/from=${from}&to=${to}&buckets=3&binding=guard-prompts`);
    const charts = page.locator("[data-testid=trend-charts]");
    await expect.poll(() => charts.getAttribute("data-binding")).toBe("guard-prompts");
    // Each chart is drawn: a canvas with pixels on it.
    for (const id of ["calls", "latency", "fuel"]) {
      await expect.poll(() => page.locator(`[data-testid=chart-${id}] canvas`).count()).toBe(1);
      const inked = await page.locator(`[data-testid=chart-${id}] canvas`).evaluate((c: HTMLCanvasElement) => {
        const data = c.getContext("2d")!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) n++;
        return n;
      });
      expect(inked, `chart ${id} is drawn`).toBeGreaterThan(100);
    }
    const inBucket = starts.map((s, i) => mine.filter((a) => a.at >= s && (i === starts.length - 1 ? a.at < to : a.at < s + bucketMs)));
    expect((await cells("table-calls")).map((r) => r.slice(1))).toEqual(inBucket.map((rows) => [String(rows.length), String(rows.filter((r) => r.errorCode).length)]));
    expect((await cells("table-latency")).map((r) => r.slice(1))).toEqual(inBucket.map((rows) => [shown(rank(rows.map((r) => r.durationMs), 0.5)), shown(rank(rows.map((r) => r.durationMs), 0.99))]));
    const fuel = (rows: AuditRow[]) => rows.flatMap((r) => (r.fuel === null ? [] : [r.fuel]));
    expect((await cells("table-fuel")).map((r) => r.slice(1))).toEqual(inBucket.map((rows) => [shown(rank(fuel(rows), 0.5)), shown(rank(fuel(rows), 0.99))]));
    // The whole range, every binding that ran in it.
    const bindings = [...new Set(audit.map((a) => a.bindingId))];
    const totals = await cells("trend-totals");
    expect(totals.map((r) => r[0]).sort()).toEqual(bindings.sort());
    for (const b of bindings) {
      const rows = audit.filter((a) => a.bindingId === b);
      expect(totals.find((r) => r[0] === b)!.slice(3)).toEqual([
        String(rows.length), String(rows.filter((r) => r.errorCode).length),
        shown(rank(rows.map((r) => r.durationMs), 0.5)), shown(rank(rows.map((r) => r.durationMs), 0.99)), shown(rank(fuel(rows), 0.5)), shown(rank(fuel(rows), 0.99)),
      ]);
    }
    await checked("trends");
  });

  it("usage per space and per gateway key shows the exact operations, errors and tokens of the range", async () => {
    await go(`trends/from=${from}&to=${to}&buckets=3`);
    await expect.poll(() => page.locator("[data-testid=usage-spaces]").textContent()).toContain("team-b");
    // The stub upstream bills 3 prompt and 2 completion tokens a call; the refused prompt never reached it.
    expect(await cells("usage-spaces")).toEqual([["team-a", "4", "1", "9", "6"], ["team-b", "2", "0", "6", "4"]]);
    expect((await cells("usage-keys")).map((r) => r.slice(1))).toEqual([["alpha", "team-a", "4", "1", "9", "6"], ["beta", "team-b", "2", "0", "6", "4"]]);
    // The range picker: another range, chosen in the form, changes the address and the figures.
    await page.selectOption("#trend-preset", String(60 * 60 * 1000));
    await page.getByRole("button", { name: "Show" }).click();
    await expect.poll(() => page.evaluate(() => location.hash)).toMatch(/^#\/trends\/from=\d+&to=\d+&buckets=3$/);
    await expect.poll(() => page.locator("[data-testid=usage-spaces]").textContent()).toContain("team-a");
    await checked("usage");
  });

  it("an operation that skipped a quarantined fail-open hook shows it, with the reason, and the call went on without it", async () => {
    const wasm = readFileSync(new URL("../../build/fixtures/unreachable.wasm", import.meta.url));
    const manifest = `id: trapper\nversion: 1.0.0\nabi: "1.0"\nentry: unreachable.wat\npoints:\n  model.chat.before:\nlimits: { timeout_ms: 200 }\nfailure_policy: fail-open\ncapability_boundary: none\nconfig_schema: { type: object }\n`;
    await api("POST", "/api/v1/plugins", { manifest, wasm_base64: wasm.toString("base64") });
    await api("POST", "/api/v1/bindings", { id: "trap", hook_ref: "trapper@1.0.0", point: "model.chat.before", priority: 1, failure_policy: "fail-open" });
    const { release } = await api<{ release: { revision: number } }>("POST", "/api/v1/releases", { activate: true });
    await expect.poll(async () => (await api<{ serving_revision: number }>("GET", "/api/v1/status")).serving_revision).toBe(release.revision);
    // Each trap is a fault; five in a minute quarantine the plugin.
    let n = 0;
    await expect.poll(async () => {
      expect((await chat("beta", `fault ${n++}`)).status).toBe(200);
      return (await api<{ items: { ref: string }[] }>("GET", "/api/v1/quarantine")).items.map((q) => q.ref);
    }, { timeout: 20_000 }).toContain("trapper@1.0.0");
    const res = await chat("beta", "while it is quarantined");
    expect(res.status).toBe(200);
    const id = res.headers.get("x-sluice-operation-id")!;
    expect((await api<{ operation: { skipped: unknown[] } }>("GET", `/api/v1/operations/${id}`)).operation.skipped)
      .toContainEqual({ point: "model.chat.before", bindingId: "trap", hookRef: "trapper@1.0.0", reason: "quarantined" });
    await go(`operations/${encodeURIComponent(id)}`);
    await expect.poll(() => page.locator("[data-testid=skipped] tbody tr", { hasText: "trapper@1.0.0" }).textContent())
      .toBe("model.chat.beforetraptrapper@1.0.0quarantined: plugin quarantined: failed without running, its failure policy decided");
    await checked("operation-skipped-quarantined");
  });
});
