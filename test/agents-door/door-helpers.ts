/** A management API server with the agents' door, in-process hooks bound, and keys of both scopes. */
import type { RequestEnvelope, Outcome } from "../../abi/envelope.js";
import { GatewayKeys } from "../../host/keys/keys.js";
import type { BindingInput } from "../../host/pipeline/release.js";
import { serveApi, raw, TOKEN, type Served, type RawResponse } from "../api/server-helpers.js";
import type { ServeOptions } from "../../host/api/server.js";

export interface Door extends Served {
  hooksKey: string;
  gatewayKey: string;
  /** Every request the bound hooks saw, by hook name. */
  seen: Map<string, RequestEnvelope[]>;
  post(agent: string, event: string, body: unknown, headers?: Record<string, string>): Promise<RawResponse>;
}

export async function serveDoor(hooks: Record<string, (r: RequestEnvelope) => Outcome>, bindings: BindingInput[], options: Partial<ServeOptions> = {}): Promise<Door> {
  const keys = new GatewayKeys(":memory:");
  const s = await serveApi({ gatewayKeys: keys, ...options });
  const seen = new Map<string, RequestEnvelope[]>();
  for (const [name, hook] of Object.entries(hooks)) {
    s.registry.host.registerHook(name, (request) => {
      seen.set(name, [...(seen.get(name) ?? []), request]);
      return hook(request);
    });
  }
  s.registry.host.activate({ revision: 1, bindings });
  const hooksKey = (await keys.create({ spaceId: "team-a", scope: "hooks" })).key;
  const gatewayKey = (await keys.create({ spaceId: "team-a" })).key;
  const post = (agent: string, event: string, body: unknown, headers: Record<string, string> = {}) =>
    raw(s, "POST", `/v1/agent-hooks/${agent}/${event}`, { host: `127.0.0.1:${s.port}`, "content-type": "application/json", authorization: `Bearer ${hooksKey}`, ...headers }, typeof body === "string" ? body : JSON.stringify(body));
  return { ...s, hooksKey, gatewayKey, seen, post, close: async () => { await s.close(); await keys.close(); } };
}

export { TOKEN };
