/**
 * The coding agents' hook door: `POST /v1/agent-hooks/{agent}/{event}`, the agent's hook
 * JSON exactly as the agent sends it, answered HTTP 200 with the agent's own reply JSON.
 *
 * - Authentication: `Authorization: Bearer <key>` with a key of scope `hooks` (`sluice keys
 *   create --space S --scope hooks`); its space scopes the bindings, the records and the audit.
 * - The body is read up to {@link DOOR_BODY_LIMIT} and kept as bytes: a refused event is
 *   recorded by its keyed digest, and nothing of an unauthenticated one reaches a hook.
 * - A malformed, oversized or unauthenticated event, or one the server fails to judge, is
 *   answered with the agent's block before a tool or at a prompt (an HTTP 200: Claude Code
 *   runs the tool on a non-2xx answer), neutrally elsewhere, and always recorded.
 * - The API's Host and Origin guards answer as they do for every route: a browser page is no agent.
 */
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify";
import type { Host } from "../host.js";
import { SluiceError } from "../errors/sluice-error.js";
import type { GatewayKeyRecord, GatewayKeys } from "../keys/keys.js";
import { authFailures, DEFAULT_AUTH_FAILURE_LIMIT, type AuthFailureLimit } from "../http/auth-failures.js";
import { BODY_MAX_DEPTH, jsonDepthExceeds } from "../http/json-body.js";
import { isAgent, type Agent } from "./agents.js";
import { AGENT_TABLE, BLOCKING_KINDS, EVENT_NAME, kindOf, unservedEvent, type EventKind } from "./mapping.js";
import { readEvent } from "./read-event.js";
import { refusal, reply as agentReply } from "./replies.js";
import { runEvent, type RunDeps } from "./run-event.js";
import { memoryEventLog, type AgentEventLog, type EventOutcome } from "./event-log.js";
import { memoryPairing, type Pairing } from "./pairing.js";
import type { SplitTools } from "./split-tools.js";
import { stagedSplitTools } from "./staged-split.js";
import { hostSplitTools } from "./host-split.js";

/** The largest event body the door reads: 1 MiB. */
export const DOOR_BODY_LIMIT = 1024 * 1024;
/** The route, under the server's root. */
export const DOOR_PATH = "/v1/agent-hooks/:agent/:event";
/** Codes the API's own guards answer with, for any client: the door does not turn them into an agent's answer. */
const GUARD_CODES = new Set(["HOST_NOT_ALLOWED", "ORIGIN_NOT_ALLOWED", "ROUTE_NOT_FOUND"]);
/** How often pres whose post never came are ended. */
const EXPIRY_EVERY_MS = 60_000;

export interface DoorOptions {
  host: Host;
  keys: GatewayKeys;
  /**
   * Where the events are recorded (status and refusals) and the tool calls' halves paired:
   * the records' database (records/agent-door-store.ts). Default: in memory, bounded, 30
   * minutes before a pre without its post expires.
   */
  store?: { events: AgentEventLog; pairing: Pairing };
  /**
   * How the two halves of a tool call run. Default: the host's split lifecycle, whose open
   * operations live in its records store (any host sharing it ends them); without a records
   * store, the host's stages held in this process.
   */
  tools?: SplitTools;
  authFailures?: Partial<AuthFailureLimit>;
  now?: () => number;
}

declare module "fastify" {
  interface FastifyContextConfig {
    /** A route of the agents' door: a hooks key instead of the management API's bearer token (api/auth.ts). */
    agentDoor?: boolean;
  }
}

const callers = new WeakMap<FastifyRequest, GatewayKeyRecord | SluiceError>();

/** The agent, its event and the event's kind from a door path; null when the path names no agent or no event. */
function routeOf(request: FastifyRequest): { agent: Agent; event: string; kind: EventKind } | null {
  const { agent, event } = (request.params ?? {}) as { agent?: string; event?: string };
  if (typeof agent !== "string" || !isAgent(agent) || typeof event !== "string" || !EVENT_NAME.test(event)) return null;
  return { agent, event, kind: kindOf(agent, event) };
}

/**
 * The door's routes, to register on the management API's server (its guards apply; its
 * bearer token does not: routes marked `agentDoor` take a hooks key instead).
 * @example await app.register(agentDoor({ host, keys }));
 */
export function agentDoor(options: DoorOptions): FastifyPluginAsync {
  return async (app) => {
    const { host, keys } = options;
    const now = options.now ?? Date.now;
    const log = options.store?.events ?? memoryEventLog();
    const deps: RunDeps = { host, tools: options.tools ?? (host.records ? hostSplitTools(host) : stagedSplitTools(host)), pairing: options.store?.pairing ?? memoryPairing(), now };
    const failures = await authFailures(app, { ...DEFAULT_AUTH_FAILURE_LIMIT, ...options.authFailures });

    // Kept as bytes: the door digests what it refuses and parses only what it judges.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser("application/json", { parseAs: "buffer", bodyLimit: DOOR_BODY_LIMIT }, (_request, body, done) => done(null, body));

    const expiry = setInterval(() => void expirePres(deps).catch(() => { /* the next round tries again */ }), EXPIRY_EVERY_MS);
    expiry.unref();
    app.addHook("onClose", async () => clearInterval(expiry));

    app.addHook("onRequest", async (request, reply) => {
      if (routeOf(request) === null) throw new SluiceError("ROUTE_NOT_FOUND", `no agent hook route ${request.url.split("?")[0]}: the door serves POST /v1/agent-hooks/{agent}/{event} for agents claude-code, codex, gemini-cli, copilot-cli`);
      await failures.check(request, reply);
      const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");
      const record = match ? await keys.verify(match[1]!) : null;
      if (record && record.scope === "hooks") { callers.set(request, record); return; }
      await failures.fail(request);
      callers.set(request, new SluiceError("GATEWAY_KEY_INVALID", !match ? "no hooks key: send Authorization: Bearer <a key from sluice keys create --scope hooks>" : record ? `the key has scope ${record.scope}, not hooks` : "the hooks key is unknown or revoked"));
    });

    const answer = async (request: FastifyRequest, reply: FastifyReply, r: { body: Record<string, unknown>; outcome: EventOutcome; code: string | null; spaceId: string | null; bodyDigest: string | null; operationId: string | null }) => {
      const route = routeOf(request)!;
      await log.add({ at: now(), agent: route.agent, event: route.event, spaceId: r.spaceId, outcome: r.outcome, code: r.code, bodyDigest: r.bodyDigest, operationId: r.operationId }).catch(() => { /* the answer stands; the status misses one event */ });
      return reply.code(200).header("cache-control", "no-store").send(r.body);
    };
    /** `as`: the event to answer in the terms of, when the route names it in a way the agent does not (its own spelling, or the event the body says it is). */
    const refuse = (request: FastifyRequest, reply: FastifyReply, error: { code: string; message: string }, spaceId: string | null, bodyDigest: string | null, as?: { event: string; kind: EventKind }) => {
      const route = routeOf(request)!;
      const { agent } = route;
      const { event, kind } = as ?? route;
      const reason = `Sluice refused this ${event} event (${error.code}): ${error.message}`;
      return answer(request, reply, { body: refusal(agent, event, kind, reason), outcome: "refused", code: error.code, spaceId, bodyDigest, operationId: null });
    };

    app.setErrorHandler(async (err: FastifyError | SluiceError, request, reply) => {
      const code = String(err.code ?? "");
      if (GUARD_CODES.has(code) || routeOf(request) === null) throw err;
      const caller = callers.get(request);
      const spaceId = caller && !(caller instanceof SluiceError) ? caller.spaceId : null;
      if (code === "FST_ERR_CTP_BODY_TOO_LARGE") return refuse(request, reply, { code: "PAYLOAD_TOO_LARGE", message: `the event is larger than the door's ${DOOR_BODY_LIMIT} bytes` }, spaceId, null);
      if (err instanceof SluiceError) return refuse(request, reply, err, spaceId, null);
      if (code.startsWith("FST_ERR_CTP")) return refuse(request, reply, { code: "AGENT_EVENT_INVALID", message: `the event could not be read: ${err.message}` }, spaceId, null);
      request.log.error({ err }, "agent hook event failed");
      return refuse(request, reply, { code: "INTERNAL_ERROR", message: "the server failed to judge it; see its log" }, spaceId, null);
    });

    app.post(DOOR_PATH, { config: { agentDoor: true }, bodyLimit: DOOR_BODY_LIMIT, schema: { hide: true } }, async (request, reply) => {
      const { agent, event, kind } = routeOf(request)!;
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const text = raw.toString("utf8");
      const bodyDigest = host.digestOf(text);
      const caller = callers.get(request);
      if (!caller || caller instanceof SluiceError) return refuse(request, reply, caller ?? new SluiceError("GATEWAY_KEY_INVALID", "no hooks key"), null, bodyDigest);
      if (jsonDepthExceeds(text, BODY_MAX_DEPTH)) return refuse(request, reply, { code: "AGENT_EVENT_INVALID", message: `the event is nested deeper than ${BODY_MAX_DEPTH} levels` }, caller.spaceId, bodyDigest);
      const instead = unservedEvent(agent, event);
      if (instead !== null) return refuse(request, reply, { code: "AGENT_EVENT_INVALID", message: `${event} is a name of ${agent}'s event the door does not read: configure the hook on ${instead}` }, caller.spaceId, bodyDigest, { event: instead, kind: kindOf(agent, instead) });
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (err) {
        // V8's message quotes the body around the fault: only its position is kept.
        const at = /at position (\d+)/.exec((err as Error).message)?.[1];
        return refuse(request, reply, { code: "AGENT_EVENT_INVALID", message: `the event is not JSON${at !== undefined ? ` (it breaks at character ${at})` : ""}` }, caller.spaceId, bodyDigest);
      }
      // The agent says which event this is: one posted under another's name would be answered in the wrong terms (a PreToolUse taken as a post runs its tool).
      const said = typeof body === "object" && body !== null && Object.hasOwn(body, "hook_event_name") ? (body as { hook_event_name: unknown }).hook_event_name : undefined;
      if (said !== undefined && said !== null && (typeof said !== "string" || said.toLowerCase() !== event.toLowerCase())) {
        const saidKind = typeof said === "string" && EVENT_NAME.test(said) ? kindOf(agent, said) : "observe";
        const as = BLOCKING_KINDS.has(saidKind) && !BLOCKING_KINDS.has(kind) ? { event: said as string, kind: saidKind } : undefined;
        const what = typeof said === "string" && EVENT_NAME.test(said) ? `a ${said} event` : "another event";
        return refuse(request, reply, { code: "AGENT_EVENT_INVALID", message: `the body is ${what}, posted as ${event} (hook_event_name): configure the hook on the event it is` }, caller.spaceId, bodyDigest, as);
      }
      const read = readEvent(agent, event, body);
      if (!read.ok) return refuse(request, reply, { code: "AGENT_EVENT_INVALID", message: read.problem }, caller.spaceId, bodyDigest);
      // Within the agent's hook timeout, with room for the answer's way back.
      const budgetMs = Math.max(1_000, AGENT_TABLE[agent].abilities.timeoutS * 1000 - 5_000);
      const ctx = { spaceId: caller.spaceId, actorId: caller.id, deadline: now() + budgetMs, ...(read.event.sessionId ? { runId: read.event.sessionId } : {}) };
      const run = await runEvent(deps, read.event, ctx, caller.id);
      return answer(request, reply, { body: agentReply(agent, event, kind, run.verdict), outcome: run.outcome, code: run.code, spaceId: caller.spaceId, bodyDigest, operationId: run.operationId });
    });
  };
}

async function expirePres(deps: RunDeps): Promise<void> {
  for (const id of await deps.pairing.expire(deps.now())) await deps.tools.after(id, { status: "unknown", reason: "the agent's after event never came" });
}
