/**
 * The console against a PostgreSQL fleet of two `sluice serve` processes: the
 * overview of one host lists both, each with the revision it serves, and follows an
 * activation made through the other. Needs `npm run build` and the run's PostgreSQL.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { FLEET_TOKEN, startFleet, type Fleet } from "../helpers/multihost.js";
import { testDatabaseUrl } from "../helpers/postgres.js";
import { launch, screenshot, seriousViolations, type Browser } from "./browser.js";

const MANIFEST = readFileSync(new URL("../../plugins/order-search-limit/hook.yaml", import.meta.url), "utf8");
const WASM = readFileSync(new URL("../../build/plugins/order-search-limit.wasm", import.meta.url));

let fleet: Fleet;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  fleet = await startFleet(2, { database: await testDatabaseUrl("console-fleet") });
  const [a] = fleet.hosts;
  await a!.api("POST", "/api/v1/plugins", { manifest: MANIFEST, wasm_base64: WASM.toString("base64") });
  await a!.api("POST", "/api/v1/bindings", { id: "orders-limit", hook_ref: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 50 } });
  await a!.api("POST", "/api/v1/releases", { activate: true });
  browser = await launch();
  page = browser.page;
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await fleet?.stop();
});

it("shows both hosts of the database on one host's overview, and follows an activation made through the other", async () => {
  const [a, b] = fleet.hosts as [Fleet["hosts"][0], Fleet["hosts"][0]];
  await page.goto(`${a.url}/console/`);
  await page.fill("#token", FLEET_TOKEN);
  await page.click("button[type=submit]");
  const hosts = page.locator("[data-testid=fleet]");
  await expect.poll(() => hosts.textContent(), { timeout: 20_000 }).toContain(b.url);
  expect(await hosts.textContent()).toContain(a.url);
  expect(await hosts.textContent()).toContain("Hosts on this database");
  expect(await hosts.locator("tbody tr").count()).toBe(2);

  await b.api("PUT", "/api/v1/bindings/orders-limit", { hook_ref: "order-search-limit@1.0.0", point: "tool.before", config: { max_limit: 20 } });
  await b.api("POST", "/api/v1/releases", { activate: true });
  const row = (url: string) => hosts.locator("tbody tr", { hasText: url });
  await expect.poll(async () => [await row(a.url).textContent(), await row(b.url).textContent()].map((t) => /r2r2/.test(t ?? "")), { timeout: 20_000 }).toEqual([true, true]);
  expect(await page.locator("[data-testid=active-revision]").textContent()).toBe("r2");
  await screenshot(page, "overview-fleet");
  expect(await seriousViolations(page)).toEqual([]);
});
