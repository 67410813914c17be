/** Who is signed in (GET /api/v1/whoami): the console offers only the actions the token's role may take. */
import { api, type Answer } from "./api.js";

export type Whoami = Answer<"/api/v1/whoami">;
export type Role = Whoami["role"];

const ORDER: readonly Role[] = ["viewer", "deployer", "admin"];

let current: Whoami | undefined;

export async function whoami(): Promise<Whoami> {
  current ??= await api<Whoami>("GET", "/api/v1/whoami");
  return current;
}

export function forget(): void {
  current = undefined;
}

/** True when the signed-in token's role reaches `need` (the server checks it again on every call). */
export function can(need: Role): boolean {
  return current !== undefined && ORDER.indexOf(current.role) >= ORDER.indexOf(need);
}

/** The attributes of a button the role may not use: disabled, saying which role it needs. */
export function gated(need: Role): Record<string, string | boolean> {
  return can(need) ? {} : { disabled: true, title: `needs the ${need} role; signed in as ${current?.name ?? "?"} (${current?.role ?? "?"})` };
}
