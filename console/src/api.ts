/**
 * The console's one way to the management API: same-origin fetch with the token in the
 * Authorization header (kept in sessionStorage: this tab only, never a cookie or a URL).
 */
const KEY = "sluice.console.token";

/**
 * The JSON a route answers, as the management API's OpenAPI document declares it
 * (host/cli/api-types.ts, generated from the routes' response schemas): the pages read the
 * server's own types, the ones the CLI reads, never a copy. Type-only: the bundle takes
 * nothing from the CLI's client.
 * @example type Plugins = Answer<"/api/v1/plugins">; type Created = Answer<"/api/v1/tokens", "post", 201>;
 */
export type { AnswerOf as Answer } from "../../host/cli/client.js";

/**
 * An error as the console shows it: the server's `{ error }` body, or one the console makes
 * itself (NETWORK_ERROR, HTTP_<status>), so `code` is any string, not only the catalogue's.
 */
export interface ErrorData { code: string; message: string; details?: Record<string, unknown> }

export class ApiError extends Error {
  constructor(readonly status: number, readonly data: ErrorData) { super(data.message); }
}

export const token = {
  get: (): string | null => sessionStorage.getItem(KEY),
  set: (t: string): void => sessionStorage.setItem(KEY, t),
  clear: (): void => sessionStorage.removeItem(KEY),
};

export async function api<T = Record<string, unknown>>(method: string, route: string, body?: unknown, bearer = token.get()): Promise<T> {
  const headers: Record<string, string> = { accept: "application/json" };
  if (bearer) headers.authorization = `Bearer ${bearer}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(route, { method, headers, credentials: "omit", cache: "no-store", ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  } catch (err) {
    throw new ApiError(0, { code: "NETWORK_ERROR", message: `cannot reach the server: ${String(err)}` });
  }
  if (res.status === 204) return undefined as T;
  const text = await res.text();
  let json: unknown;
  try { json = text ? JSON.parse(text) : {}; } catch { json = undefined; }
  if (!res.ok) {
    const e = (json as { error?: ErrorData } | undefined)?.error;
    throw new ApiError(res.status, e && typeof e.code === "string" ? e : { code: `HTTP_${res.status}`, message: text.slice(0, 500) || res.statusText });
  }
  return json as T;
}
