/** Gateway keys: the store and the management routes the API mounts. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Fastify, { type FastifyInstance } from "fastify";
import { createGateway, GatewayKeys, gatewayKeyRoutes } from "../../host/gateway/index.js";
import { createHost, type Host } from "../../host/index.js";
import { isSluiceError } from "../../host/errors/sluice-error.js";

let keys: GatewayKeys;
let app: FastifyInstance;
let host: Host;
beforeAll(async () => {
  host = createHost({ workers: 1 });
  keys = new GatewayKeys(":memory:");
  app = Fastify();
  // Stands in for the management API's error handler.
  app.setErrorHandler((err, _req, reply) => isSluiceError(err) ? reply.code(err.status).send({ error: { code: err.code, message: err.message } }) : reply.send(err));
  await app.register(gatewayKeyRoutes, { prefix: "/api/v1", keys });
});
afterAll(async () => { await app.close(); await keys.close(); await host.close(); });

describe("gateway keys", () => {
  it("stores only a hash: the plaintext key is answered once and verifies until it is revoked", async () => {
    const { key, record } = await keys.create({ spaceId: "team-a", name: "ci" });
    expect(key).toMatch(/^sk-sluice-[A-Za-z0-9_-]{43}$/);
    expect(record).toMatchObject({ spaceId: "team-a", name: "ci", prefix: key.slice(0, 14), revokedAt: null });
    expect(await keys.verify(key)).toEqual(record);
    expect(JSON.stringify(await keys.list())).not.toContain(key.slice(14));
    await keys.revoke(record.id);
    expect(await keys.verify(key)).toBeNull();
    expect(await keys.verify(key.slice(0, -1))).toBeNull();
  });

  it("refuses a key on the very next request once it is revoked, though verified keys are remembered", async () => {
    const { key, record } = await keys.create({ spaceId: "team-a" });
    expect(await keys.verify(key)).toEqual(record);
    expect(await keys.verify(key)).toEqual(record);
    await keys.revoke(record.id);
    expect(await keys.verify(key)).toBeNull();
  });

  it("creates, lists and revokes keys over the management routes", async () => {
    const created = await app.inject({ method: "POST", url: "/api/v1/gateway/keys", payload: { space_id: "team-b", name: "agent" } });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(body).toMatchObject({ space_id: "team-b", name: "agent", revoked_at: null });
    expect((await keys.verify(body.key))?.id).toBe(body.id);

    const listed = (await app.inject({ method: "GET", url: "/api/v1/gateway/keys?space_id=team-b" })).json();
    expect(listed.keys).toEqual([{ id: body.id, space_id: "team-b", name: "agent", prefix: body.prefix, created_at: body.created_at, revoked_at: null, scope: "gateway" }]);

    const revoked = await app.inject({ method: "DELETE", url: `/api/v1/gateway/keys/${body.id}` });
    expect(revoked.statusCode).toBe(200);
    expect(revoked.json().revoked_at).toEqual(expect.any(String));
    expect(await keys.verify(body.key)).toBeNull();
  });

  it("refuses an invalid space id and an unknown key id with their codes", async () => {
    const bad = await app.inject({ method: "POST", url: "/api/v1/gateway/keys", payload: { space_id: "../etc" } });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe("ID_INVALID");
    const missing = await app.inject({ method: "DELETE", url: "/api/v1/gateway/keys/gk_nope" });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe("GATEWAY_KEY_NOT_FOUND");
  });

  it("makes a hooks key, which the model gateway refuses", async () => {
    const created = (await app.inject({ method: "POST", url: "/api/v1/gateway/keys", payload: { space_id: "team-c", scope: "hooks" } })).json();
    expect(created.scope).toBe("hooks");
    const gateway = createGateway({ host, keys, upstream: { baseUrl: "http://127.0.0.1:9/v1" }, logger: false });
    try {
      const r = await gateway.inject({ method: "POST", url: "/v1/chat/completions", headers: { authorization: `Bearer ${created.key}` }, payload: { model: "m", messages: [{ role: "user", content: "hi" }] } });
      expect(r.statusCode).toBe(401);
      expect(r.json().error.message).toContain("scope hooks");
    } finally {
      await gateway.close();
    }
    const bad = await app.inject({ method: "POST", url: "/api/v1/gateway/keys", payload: { space_id: "team-c", scope: "admin" } });
    expect(bad.statusCode).toBe(400);
  });
});
