/**
 * The management API's roles, weakest first: a token of one role may use every route of
 * the roles before it. Each route states the role it needs (its `config.role`, checked in
 * api/roles.ts before the body is read); docs/api-roles.md is generated from those routes.
 */
export const API_ROLES = ["viewer", "deployer", "admin"] as const;

export type ApiRole = (typeof API_ROLES)[number];

/** What each role is for, as the docs and `sluice tokens create --help` say it. */
export const ROLE_PURPOSE: Readonly<Record<ApiRole, string>> = {
  viewer: "reads everything the console shows (plugins, bindings, releases, operations, audits, figures)",
  deployer: "and changes what serves: upload, bind, enable and disable, publish, activate, roll back, deploy, lift a quarantine, test calls and replays",
  admin: "and manages access: API tokens and gateway keys",
};

export function isApiRole(value: unknown): value is ApiRole {
  return typeof value === "string" && (API_ROLES as readonly string[]).includes(value);
}

/** True when a token of role `have` may use a route that needs `need`. */
export function roleAllows(have: ApiRole, need: ApiRole): boolean {
  return API_ROLES.indexOf(have) >= API_ROLES.indexOf(need);
}
