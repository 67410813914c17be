/**
 * Headless Chromium for the console tests: Debian's /usr/bin/chromium driven by
 * playwright-core (no browser download), a fresh profile per launch, axe-core injected
 * from node_modules, and screenshots saved under test/console/artifacts/ (gitignored).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const ARTIFACTS = path.join(path.dirname(fileURLToPath(import.meta.url)), "artifacts");

export interface Browser { context: BrowserContext; page: Page; close(): Promise<void> }

export async function launch(): Promise<Browser> {
  const profile = mkdtempSync(path.join(tmpdir(), "sluice-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1280, height: 900 },
  });
  const page = context.pages()[0] ?? await context.newPage();
  return { context, page, close: async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); } };
}

/** Saves a full-page screenshot as artifacts/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS, { recursive: true });
  const file = path.join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return file;
}

const AXE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export interface Violation { id: string; impact: string | null; help: string; nodes: string[] }

/**
 * axe-core's serious and critical violations on the page as it is now. Injected through
 * the DevTools protocol (page.evaluate), which the page's CSP does not apply to: the
 * console itself allows no script but its own.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(`${AXE}\n;0`);
  const found = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => JSON.stringify(n.target)) }));
  });
  return found.filter((v) => v.impact === "serious" || v.impact === "critical");
}
