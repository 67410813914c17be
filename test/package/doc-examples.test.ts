/**
 * The TypeScript of README.md's "Use it from a service" and docs/service-owners.md, as a
 * service owner uses it: typechecked strictly against the package's declarations, and the
 * service-owners page run by Node (types stripped) in one module, as its blocks build on
 * each other. Needs `npm run build` first. docs/adapters.md's examples have their own test
 * (test/adapters/readme-examples.test.ts).
 */
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stripTypes, tsBlocks, typeErrors } from "../helpers/doc-code.js";
import { repoRoot } from "../helpers/fixtures.js";

// Inside the repository, so `sluice` resolves to dist/ as it does for a consumer.
const DIR = path.join(repoRoot, "build/doc-examples");
const page = (file: string): string => readFileSync(path.join(repoRoot, file), "utf8");

/** The README's example with the reader's own names (the module, the tool, the signal) declared. */
function readmeService(): string {
  const section = page("README.md").split("\n## Use it from a service\n")[1]!;
  const given = [
    "declare const wasm: Uint8Array;",
    "declare const signal: AbortSignal;",
    "declare const schema: Record<string, unknown>;",
    "declare function searchOrders(args: unknown, options: { idempotencyKey: string; signal: AbortSignal }): Promise<unknown>;",
  ].join("\n");
  return `${given}\n${tsBlocks(section)[0]!}\nexport {};\n`;
}

/** docs/service-owners.md's three blocks in one module: where the package is, loading pii-redact, a streamed chat. */
function serviceOwners(given: string): string {
  return `${given}\n${tsBlocks(page("docs/service-owners.md")).join("\n")}\nawait host.close();\nexport {};\n`;
}

function run(file: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [file], { cwd: repoRoot, timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === "number" ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

describe("the service owner's examples", () => {
  it("README.md's and docs/service-owners.md's typecheck, strictly, against the package's declarations", () => {
    expect(tsBlocks(page("docs/service-owners.md"))).toHaveLength(3);
    mkdirSync(DIR, { recursive: true });
    const readme = path.join(DIR, "readme-service.ts");
    writeFileSync(readme, readmeService());
    const owners = path.join(DIR, "service-owners.ts");
    writeFileSync(owners, serviceOwners(`import type { ChatMessage, ToolCallDelta } from "sluice";\ndeclare const messages: ChatMessage[];`));
    expect(typeErrors([readme, owners])).toEqual([]);
  }, 60_000);

  it("docs/service-owners.md's blocks find the shipped pii-redact, load it and stream through it", async () => {
    mkdirSync(DIR, { recursive: true });
    const file = path.join(DIR, "service-owners.mjs");
    writeFileSync(file, stripTypes(serviceOwners(`const messages = [{ role: "user", content: "Say hello." }];`)));
    const r = await run(file);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe("Hello, world.");
  }, 60_000);
});
