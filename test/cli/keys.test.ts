/** `sluice keys create/list/revoke`: the gateway's API keys from the CLI. */
import { createServer, type AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../../host/api/server.js";
import { GatewayKeys } from "../../host/keys/keys.js";
import { Registry } from "../../host/registry/registry.js";
import { tempDir } from "../registry/fixtures.js";
import { sluice, spawnSluice, TOKEN, waitFor } from "./run-cli.js";

let env: Record<string, string>;
let close: () => Promise<void>;
let keys: GatewayKeys;

beforeAll(async () => {
  const dataDir = tempDir();
  const registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
  keys = new GatewayKeys(path.join(dataDir, "sluice.db"));
  const server = await startApiServer({ registry, token: TOKEN, port: 0, logger: false, gatewayKeys: keys });
  env = { SLUICE_URL: server.url, SLUICE_TOKEN: TOKEN };
  close = async () => { await server.close(); await keys.close(); await registry.close(); };
}, 60_000);
afterAll(async () => { await close?.(); });

describe("sluice keys", () => {
  it("creates a key for a space (printed once, alone on stdout, so $(...) captures it), lists it without its secret, and revokes it", async () => {
    const created = await sluice(["keys", "create", "--space", "team-a", "--name", "laptop"], env);
    expect(created.code).toBe(0);
    expect(created.stdout).toMatch(/^sk-sluice-\S+\n$/);
    const key = created.stdout.trim();
    expect(created.stderr).toMatch(/^\(gateway key \S+ for space team-a; shown only now: keep it, e\.g\. as OPENAI_API_KEY\)\n$/);
    expect((await keys.verify(key!))?.spaceId).toBe("team-a");

    const listed = await sluice(["keys", "list", "--json"], env);
    expect(listed.code).toBe(0);
    const { keys: rows } = JSON.parse(listed.stdout) as { keys: { id: string; space_id: string; name: string; revoked_at: string | null }[] };
    expect(rows).toEqual([expect.objectContaining({ space_id: "team-a", name: "laptop", revoked_at: null })]);
    expect(listed.stdout).not.toContain(key!);

    const revoked = await sluice(["keys", "revoke", rows[0]!.id], env);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^revoked ${rows[0]!.id} \\(space team-a\\) at \\S+`));
    expect(await keys.verify(key!)).toBeFalsy();
  });

  it("create waits for a server that is starting, as right after `sluice serve &`", async () => {
    const port = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, "127.0.0.1", () => { const { port: p } = probe.address() as AddressInfo; probe.close(() => resolve(p)); });
    });
    const cli = spawnSluice(["keys", "create", "--space", "team-b", "--scope", "hooks"], { SLUICE_URL: `http://127.0.0.1:${port}`, SLUICE_TOKEN: TOKEN });
    const stdout: Buffer[] = [];
    cli.stdout.on("data", (d: Buffer) => stdout.push(d));
    const exited = new Promise<number | null>((resolve) => cli.once("exit", resolve));
    await waitFor(cli, /waiting up to 30 s for a server at/, "stderr");
    const dataDir = tempDir();
    const registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
    const late = await startApiServer({ registry, token: TOKEN, port, logger: false, gatewayKeys: keys });
    try {
      expect(await exited).toBe(0);
      const key = Buffer.concat(stdout).toString();
      expect(key).toMatch(/^sk-sluice-\S+\n$/);
      expect((await keys.verify(key.trim()))?.spaceId).toBe("team-b");
    } finally {
      await late.close();
      await registry.close();
    }
  });

  it("create without --space is a usage error", async () => {
    const r = await sluice(["keys", "create"], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--space <id>");
  });
});
