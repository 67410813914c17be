/**
 * A management API server on a fresh registry with gateway keys, and one API token per role
 * made through POST /api/v1/tokens: what the role tests call each route with.
 */
import path from "node:path";
import { expect } from "vitest";
import { createApiServer } from "../../host/api/server.js";
import { API_ROLES, type ApiRole } from "../../host/keys/api-roles.js";
import { GatewayKeys } from "../../host/keys/keys.js";
import { Registry } from "../../host/registry/registry.js";
import { tempDir } from "../registry/fixtures.js";

export interface RoleServer {
  registry: Registry;
  keys: GatewayKeys;
  app: Awaited<ReturnType<typeof createApiServer>>;
  /** Each role's bearer token. */
  tokenOf: Record<ApiRole, string>;
  close(): Promise<void>;
}

/** `label` names the tokens made (`<label> <role>`). */
export async function roleServer(label: string): Promise<RoleServer> {
  const dataDir = tempDir();
  const token = `${label.replace(/\W/g, "-")}-token-0123456789abcdefghijklmn`;
  const registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
  const keys = new GatewayKeys(path.join(dataDir, "keys.db"));
  const app = await createApiServer({ registry, token, logger: false, gatewayKeys: keys });
  const tokenOf = {} as Record<ApiRole, string>;
  for (const role of API_ROLES) {
    const res = await app.inject({ method: "POST", url: "/api/v1/tokens", headers: { authorization: `Bearer ${token}` }, payload: { name: `${label} ${role}`, role } });
    expect(res.statusCode).toBe(201);
    tokenOf[role] = res.json().token;
  }
  return { registry, keys, app, tokenOf, close: async () => { await app.close(); await keys.close(); await registry.close(); } };
}
