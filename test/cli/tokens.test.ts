/**
 * `sluice tokens` and the release actions from the CLI, run as a script runs them (no
 * terminal): named tokens with roles, a viewer refused, a rollback that resets the draft so
 * the next publish does not bring back what it undid, and the control audit naming who acted.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../host/api/server.js";
import { Registry } from "../../host/registry/registry.js";
import { fixture, manifestYaml, tempDir } from "../registry/fixtures.js";
import { sluice, TOKEN } from "./run-cli.js";

let registry: Registry;
let url: string;
let close: () => Promise<void>;
const as = (token: string) => ({ SLUICE_URL: url, SLUICE_TOKEN: token });
const admin = () => as(TOKEN);

beforeAll(async () => {
  registry = await Registry.open({ dataDir: tempDir(), hostOptions: { workers: 1 } });
  const server = await startApiServer({ registry, token: TOKEN, port: 0, logger: false });
  url = server.url;
  close = async () => { await server.close(); await registry.close(); };
}, 60_000);
afterAll(async () => { await close?.(); });

async function created(name: string, role: string): Promise<{ id: string; name: string; role: string; token: string }> {
  const r = await sluice(["tokens", "create", "--name", name, "--role", role, "--json"], admin());
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout);
}

describe("sluice tokens", () => {
  it("creates a named token printed once as {id, name, role, token}, lists it without its secret, and revokes it", async () => {
    const t = await created("ana", "viewer");
    expect(Object.keys(t)).toEqual(["id", "name", "role", "token"]);
    expect(t).toMatchObject({ name: "ana", role: "viewer" });
    const listed = await sluice(["tokens", "list", "--json"], admin());
    const { items } = JSON.parse(listed.stdout) as { items: { id: string; name: string; role: string; builtin: boolean; revoked_at: string | null }[] };
    expect(items[0]).toMatchObject({ id: "admin", name: "admin", role: "admin", builtin: true });
    expect(items).toContainEqual(expect.objectContaining({ id: t.id, name: "ana", role: "viewer", revoked_at: null }));
    expect(listed.stdout).not.toContain(t.token);
    expect((await sluice(["status"], as(t.token))).code).toBe(0);

    const revoked = await sluice(["tokens", "revoke", t.id], admin());
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^revoked ${t.id} \\("ana"\\)`));
    const refused = await sluice(["status"], as(t.token));
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain("UNAUTHORIZED");
  });

  it("without --json, prints the token alone on stdout (so $(...) captures it) and the note on stderr", async () => {
    const r = await sluice(["tokens", "create", "--name", "build-bot", "--role", "deployer"], admin());
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^\S+\n$/);
    expect(r.stderr).toMatch(/^\(token \S+ "build-bot", role deployer; shown only now: keep it, e\.g\. as SLUICE_TOKEN\)\n$/);
    expect((await sluice(["status"], as(r.stdout.trim()))).code).toBe(0);
  });

  it("a viewer reads but cannot act: the refusal names the role it needs", async () => {
    const viewer = await created("watcher", "viewer");
    expect((await sluice(["list"], as(viewer.token))).code).toBe(0);
    const r = await sluice(["rollback"], as(viewer.token));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("NEEDS_DEPLOYER_ROLE");
    const k = await sluice(["tokens", "create", "--name", "x", "--role", "admin"], as(viewer.token));
    expect(k.stderr).toContain("NEEDS_ADMIN_ROLE");
  });

  it("refuses an unknown role before calling the server", async () => {
    const r = await sluice(["tokens", "create", "--name", "x", "--role", "root"], admin());
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/viewer, deployer, admin/);
  });

  it("rotates the server's own token as sluice tokens rotate, and still as sluice token rotate", async () => {
    const dir = tempDir("sluice-rotate-");
    for (const args of [["tokens", "rotate"], ["token", "rotate"]]) {
      const r = await sluice([...args, "--data-dir", dir], {});
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toContain(`wrote a new token to ${dir}/api-token`);
    }
  });
});

describe("release actions from a script", () => {
  it("a rollback resets the draft, so the next publish does not resurrect the change; the control audit names who did each", async () => {
    const deployer = await created("ci", "deployer");
    await registry.upload({ manifest: manifestYaml(), wasm: fixture("continue") });
    await registry.createBinding({ id: "guard", hook_ref: "clamp@1.0.0", point: "tool.before", config: { max_limit: 5 } });
    const first = await sluice(["publish", "--activate"], as(deployer.token));
    expect(first.code, first.stderr).toBe(0);
    const disabled = await sluice(["disable", "guard"], as(deployer.token));
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(await registry.activeRevision()).toBe(2);

    // No terminal: it acts without asking, as scripts expect.
    const back = await sluice(["rollback"], as(deployer.token));
    expect(back.code, back.stderr).toBe(0);
    expect(back.stdout).toContain("active revision: 1; the draft is reset to it");
    expect((await registry.getBinding("guard")).enabled).toBe(true);

    const again = await sluice(["publish", "--activate", "--json"], as(deployer.token));
    const published = JSON.parse(again.stdout) as { release: { revision: number; bindings: { id: string; enabled: boolean }[] } };
    expect(published.release.bindings).toEqual([expect.objectContaining({ id: "guard", enabled: true })]);

    const audit = await sluice(["audit", "--control", "--json"], as(deployer.token));
    expect(audit.code, audit.stderr).toBe(0);
    const { items, total } = JSON.parse(audit.stdout) as { items: { action: string; token_name: string; changes: { path: string; from: unknown; to: unknown }[] }[]; total: number };
    expect(total).toBe(items.length);
    const byCi = items.filter((e) => e.token_name === "ci").map((e) => e.action);
    expect(byCi).toEqual(["publish", "rollback", "disable", "publish"]);
    expect(items.find((e) => e.action === "disable")!.changes).toContainEqual({ path: "guard: enabled", from: true, to: false });
    expect(items.find((e) => e.action === "rollback")!.changes).toContainEqual({ path: "active revision", from: 2, to: 1 });
    expect(items.filter((e) => e.action === "token.create").every((e) => e.token_name === "admin")).toBe(true);
    const text = await sluice(["audit", "--control", "--action", "disable"], as(deployer.token));
    expect(text.stdout).toMatch(/disable\s+ci \(deployer\)\s+guard\s+guard: enabled true → false/);
  });
});
