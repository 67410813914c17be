/**
 * Named API tokens for the management API, each with a role (api-roles.ts). Only a token's
 * sha256 is stored; the plaintext exists once, in the create answer. The server's own
 * token (SLUICE_TOKEN, --token-file or the data folder's api-token) is not stored here: it
 * is the built-in token named `admin` (api/auth.ts).
 */
import { createHash, randomBytes } from "node:crypto";
import { SluiceError } from "../errors/sluice-error.js";
import { API_ROLES, isApiRole, type ApiRole } from "./api-roles.js";
import type { ApiTokenRow, ApiTokenStore } from "./api-token-store.js";

/** Every named token starts with it, so leaked tokens are easy to recognise and scan for. */
export const API_TOKEN_PREFIX = "sluice_at_";
/** Names: letters, digits, ".", "_", "-", "@" and spaces, as people and scripts are named. */
export const TOKEN_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._@ -]{0,99}$/;
/** The name of the server's own token, which no named token may take. */
export const BUILTIN_TOKEN_NAME = "admin";

/**
 * @example
 * const tokens = new ApiTokens(openSqliteApiTokenStore("/var/lib/sluice/sluice.db"));
 * const { token, record } = await tokens.create({ name: "ci", role: "deployer" });
 * (await tokens.verify(token))?.role; // "deployer"
 */
export class ApiTokens {
  constructor(private readonly store: ApiTokenStore) {}

  /** Creates a token; its plaintext is returned here and never again. */
  async create(input: { name: unknown; role: unknown }): Promise<{ token: string; record: ApiTokenRow }> {
    const { name, role } = input;
    if (typeof name !== "string" || !TOKEN_NAME_PATTERN.test(name)) {
      throw new SluiceError("REQUEST_INVALID", `a token's name must be 1-100 letters, digits, ".", "_", "@", "-" or spaces, starting with a letter or digit; got ${JSON.stringify(String(name).slice(0, 80))}`, { field: "name" });
    }
    if (name === BUILTIN_TOKEN_NAME) throw new SluiceError("API_TOKEN_NAME_TAKEN", `"${BUILTIN_TOKEN_NAME}" is the server's own token (rotate it with sluice tokens rotate); choose another name`, { name });
    if (!isApiRole(role)) throw new SluiceError("REQUEST_INVALID", `role must be one of ${API_ROLES.join(", ")}; got ${JSON.stringify(String(role).slice(0, 40))}`, { field: "role" });
    const token = API_TOKEN_PREFIX + randomBytes(32).toString("base64url");
    const record: ApiTokenRow = { id: `tok_${randomBytes(9).toString("base64url")}`, name, role, prefix: token.slice(0, API_TOKEN_PREFIX.length + 4), createdAt: new Date().toISOString(), revokedAt: null };
    await this.store.insert(record, sha256(token));
    return { token, record };
  }

  /** The live record of a presented token, or null when it is unknown or revoked. */
  async verify(token: string): Promise<ApiTokenRow | null> {
    if (!token.startsWith(API_TOKEN_PREFIX)) return null;
    return (await this.store.byHash(sha256(token))) ?? null;
  }

  list(): Promise<ApiTokenRow[]> {
    return this.store.list();
  }

  /** Revokes a token at once (idempotent); API_TOKEN_NOT_FOUND for an unknown id. */
  async revoke(id: string): Promise<ApiTokenRow> {
    const record = await this.store.revoke(id, new Date().toISOString());
    if (!record) throw new SluiceError("API_TOKEN_NOT_FOUND", `no API token with id ${JSON.stringify(id.slice(0, 80))}; list them with sluice tokens list`, { id });
    return record;
  }

  close(): Promise<void> {
    return this.store.close();
  }
}

export type { ApiRole };

function sha256(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}
