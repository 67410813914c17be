/**
 * docs/api-roles.md, rendered from the routes a server registers: `npm run docs:roles`
 * (scripts/docs-api-roles.mjs); test/api/roles.test.ts keeps the page in sync.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { ROLE_PURPOSE } from "../keys/api-roles.js";
import { GatewayKeys } from "../keys/keys.js";
import { Registry } from "../registry/registry.js";
import { apiRolesMarkdown, routeRoles } from "./roles.js";
import { createApiServer } from "./server.js";

/** The page, from a server on an empty registry with gateway keys (so every route is there). */
export async function renderApiRolesDoc(): Promise<string> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "sluice-api-roles-"));
  const registry = await Registry.open({ dataDir, followReleases: false, hostOptions: { workers: 1 } });
  const gatewayKeys = new GatewayKeys(path.join(dataDir, "keys.db"));
  try {
    const app = await createApiServer({ registry, token: "api-roles-doc-token-0123456789abcdefghij", logger: false, gatewayKeys });
    await app.ready();
    const page = apiRolesMarkdown(routeRoles(app), ROLE_PURPOSE);
    await app.close();
    return page;
  } finally {
    await gatewayKeys.close();
    await registry.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
