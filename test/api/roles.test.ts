/** Every route states its role; each role reaches exactly its routes, refused before the body is read. */
import { readFileSync, writeFileSync } from "node:fs";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { requireRoles, routeRoles, type RouteRole } from "../../host/api/roles.js";
import { renderApiRolesDoc } from "../../host/api/roles-doc.js";
import { API_ROLES, roleAllows } from "../../host/keys/api-roles.js";
import { roleServer, type RoleServer } from "../helpers/role-server.js";

const DOC = new URL("../../docs/api-roles.md", import.meta.url);

let server: RoleServer;
let app: RoleServer["app"];
let tokenOf: RoleServer["tokenOf"];

beforeAll(async () => {
  server = await roleServer("walker");
  ({ app, tokenOf } = server);
});
afterAll(async () => { await server?.close(); });

/** A concrete URL for a route: every parameter filled with a value no store holds. */
const concrete = (url: string): string => url.replace(/:revision/g, "1").replace(/:[a-z]+/g, "nope").replace("*", "nope");

describe("roles on every route", () => {
  it("every route of the API states a role, and there are routes of each role", () => {
    const routes = routeRoles(app);
    expect(routes.length).toBeGreaterThan(30);
    for (const role of API_ROLES) expect(routes.some((r) => r.role === role)).toBe(true);
    expect(routes.filter((r) => r.method !== "GET" && r.role === "viewer")).toEqual([]);
  });

  it("walks every route with each role: a weaker role gets 403 naming the role it needs, before the body is validated; a strong enough one gets past the check", async () => {
    const seen: string[] = [];
    for (const route of routeRoles(app)) {
      for (const role of API_ROLES) {
        // A body no route accepts: a refused role must answer 403 before validation would answer 400.
        const res = await app.inject({
          method: route.method as "GET", url: concrete(route.url), headers: { authorization: `Bearer ${tokenOf[role]}` },
          ...(route.method === "GET" ? {} : { payload: { "not-a-field": true } }),
        });
        const code = res.headers["content-type"]?.toString().startsWith("application/json") ? res.json()?.error?.code : undefined;
        const label = `${route.method} ${route.url} as ${role}`;
        if (roleAllows(role, route.role)) {
          expect({ label, status: res.statusCode }).not.toMatchObject({ status: 403 });
          expect({ label, status: res.statusCode }).not.toMatchObject({ status: 401 });
        } else {
          expect({ label, status: res.statusCode, code }).toEqual({ label, status: 403, code: route.role === "admin" ? "NEEDS_ADMIN_ROLE" : "NEEDS_DEPLOYER_ROLE" });
        }
        seen.push(label);
      }
    }
    expect(seen.length).toBe(routeRoles(app).length * API_ROLES.length);
  });

  it("a viewer cannot upload, publish or roll back, and the refusal says which role it needs", async () => {
    const res = await app.inject({ method: "POST", url: "/api/v1/releases/rollback", headers: { authorization: `Bearer ${tokenOf.viewer}` } });
    expect(res.statusCode).toBe(403);
    expect(res.json().error).toMatchObject({ code: "NEEDS_DEPLOYER_ROLE", details: { need: "deployer", role: "viewer" } });
    expect(res.json().error.message).toContain("walker viewer");
  });

  it("refuses to register a route that states no role", async () => {
    const bare = Fastify();
    requireRoles(bare);
    expect(() => bare.get("/api/v1/forgot", async () => ({}))).toThrow(/GET \/api\/v1\/forgot states no role/);
    await bare.close().catch(() => undefined);
  });
});

describe("docs/api-roles.md", () => {
  it("is exactly what the routes' roles render (run npm run docs:roles)", async () => {
    const page = await renderApiRolesDoc();
    if (process.env.SLUICE_WRITE_DOCS === "1") writeFileSync(DOC, page);
    expect(readFileSync(DOC, "utf8")).toBe(page);
  });

  it("lists each route once, with the role the server enforces", () => {
    const page = readFileSync(DOC, "utf8");
    for (const r of routeRoles(app) as RouteRole[]) expect(page).toContain(`| ${r.method} | \`${r.url}\` | ${r.role} |`);
  });
});
