/**
 * The one table of error codes. The code is the contract: callers match on it, never on
 * message text. `abi/errors.md` is generated from this table and a test keeps them in sync.
 */
export const ERROR_CODES = {
  // Module checks at upload / load.
  MODULE_INVALID: { status: 400, summary: "The bytes are not a valid WebAssembly module." },
  MODULE_TOO_LARGE: { status: 413, summary: "The module is larger than the plugin's module size limit." },
  MODULE_MISSING_EXPORT: { status: 400, summary: "A required export (memory, sluice_alloc, sluice_handle, the ABI marker) is missing or has the wrong kind or signature; the error names the export and the signature it must have." },
  MODULE_FORBIDDEN_IMPORT: { status: 400, summary: "The module imports something outside the sluice_v1 allow-list; the error names the import." },
  MODULE_MEMORY_TOO_LARGE: { status: 400, summary: "The module's initial memory exceeds its memory limit, or it declares more than one memory." },
  MODULE_LIMIT_EXCEEDED: { status: 400, summary: "The module declares more of an engine resource than its limits allow (tables, table entries, functions, globals, types, exports, element entries, data segments, tags, locals per function, function body size); the error names the item, the limit and the hook.yaml key that raises it." },
  CAPABILITY_UNKNOWN: { status: 400, summary: "The manifest or loadPlugin asks for a capability this host does not know; the error names it and lists the known ones." },
  CAPABILITY_NOT_GRANTED: { status: 400, summary: "The module imports a capability-gated host function its manifest does not declare." },
  ABI_VERSION_MISSING: { status: 400, summary: "The module has no sluice_abi_v<major>_<minor> export marker, more than one, or one whose name is not canonical (decimal, no leading zeros)." },
  ABI_VERSION_UNSUPPORTED: { status: 400, summary: "The module's ABI version is not served by this host; the error names both versions." },

  // One invocation of a guest.
  INPUT_TOO_LARGE: { status: 413, summary: "The encoded request exceeds the plugin's input limit; the guest was not called." },
  OUTPUT_TOO_LARGE: { status: 502, summary: "The guest's reply exceeds the output limit; it was not copied." },
  OUTPUT_OUT_OF_BOUNDS: { status: 502, summary: "The guest's reply pointer and length lie outside its memory." },
  OUTPUT_MALFORMED: { status: 502, summary: "The guest's reply is not valid ABI msgpack." },
  OUTPUT_INVALID: { status: 502, summary: "The guest's reply is valid msgpack but not a valid reply envelope." },
  GUEST_TIMEOUT: { status: 504, summary: "The guest ran past its time limit; its worker was terminated and replaced." },
  GUEST_FUEL_EXHAUSTED: { status: 502, summary: "The guest used up its fuel (limits.fuel): its instruction budget for one call. The worker keeps serving." },
  GUEST_MEMORY_LIMIT: { status: 502, summary: "The guest ran out of memory at its memory limit." },
  GUEST_STACK_OVERFLOW: { status: 502, summary: "The guest exhausted its call stack." },
  GUEST_TRAP: { status: 502, summary: "The guest trapped (unreachable, out-of-bounds access, division by zero, ...)." },
  GUEST_ABORTED: { status: 502, summary: "The guest called abort; the error carries its message." },
  WORKER_CRASHED: { status: 503, summary: "The worker thread running the call died; it is replaced. Answered over HTTP with retry-after: 1." },
  CALL_CANCELLED: { status: 499, summary: "The caller's AbortSignal cancelled the call." },
  DEADLINE_EXCEEDED: { status: 504, summary: "The operation's deadline passed." },
  WORKER_RESTART_LIMITED: { status: 503, summary: "The module caused too many worker restarts recently (timeouts, cancellations); its calls are refused until the restart budget refills." },
  QUEUE_FULL: { status: 503, summary: "The executor's queue is full; retry later (back-pressure): answered over HTTP with retry-after: 1, which OpenAI clients wait for. Only work that starts something is refused (a before stage, a plain call): nothing was called yet. A stage after the real call (after, chunk) waits its turn instead, so a stream under way is never cut." },
  PLUGIN_QUARANTINED: { status: 503, summary: "The plugin failed repeatedly (traps, timeouts, bad output) within its window and is quarantined: its bindings get their failure policy without running it until an operator lifts it or its cooldown ends." },
  EXECUTOR_CLOSED: { status: 503, summary: "The executor was closed. Answered over HTTP with retry-after: 1 (another host, or this one restarted, can take the retry)." },

  // Pipeline semantics.
  OUTCOME_NOT_ALLOWED: { status: 502, summary: "The hook returned an outcome its point does not allow." },
  PATCH_FORBIDDEN: { status: 502, summary: "The patch touches a field the point does not allow or does not declare (undeclared fields pass through untouched), or one the plugin's grant does not allow, or a model param the framework adapter in use cannot pass to the model; the error names the path." },
  ANSWER_ALREADY_STREAMED: { status: 502, summary: "A model.chat.after hook whose manifest declares `stream_rewrite: chunk` returned patch_output or redact on a streamed answer: its chunk hook is its stream rewrite, the text was already sent, so on a stream it may only continue, block or annotate (abi/README.md §4.3). Its binding's failure policy decides." },
  PATCH_INVALID: { status: 502, summary: "The patch cannot be applied, or its result fails the point's schema." },
  PAYLOAD_INVALID: { status: 400, summary: "What the caller gave the boundary (the call context, the payload, or an agent report) does not match its schema; the error names the field." },
  FINAL_CHECK_FAILED: { status: 400, summary: "The final input failed the service's last check (tool schema, authorization, path rules)." },
  HOOK_REJECTED: { status: 403, summary: "A hook rejected the operation; the error carries the hook's code and reason." },
  HOOK_BLOCKED: { status: 403, summary: "A hook blocked the output; the error carries the hook's code and reason." },
  HOOK_ASKED: { status: 403, summary: "A hook asked for approval before the operation (outcome `ask` at tool.before): it was not run; the error carries the hook's reason and, when it gave one, its code." },
  HOOK_EXCEPTION: { status: 502, summary: "An in-process hook threw or returned something that is not an outcome." },
  MODEL_OUTPUT_INVALID: { status: 502, summary: "The model's answer is not a valid message: not an object (or a stream chunk that is not one), a field the host reads of the wrong type, a tool_call without id or name, duplicate tool_call ids, or arguments that are not a JSON object (streamed deltas are assembled first); details name the field or tool_call." },
  OPERATION_FAILED: { status: 502, summary: "The wrapped operation itself (the service's model, tool or embedding call) failed; the error keeps its cause." },
  HOOK_FAILED: { status: 502, summary: "A fail-closed hook failed; the error names the binding, the phase and the cause." },
  EMBEDDING_SIGNATURE_MISMATCH: { status: 409, summary: "The embedding chain's index signature differs from the one the index was built with." },
  EMBEDDING_SHAPE_INVALID: { status: 502, summary: "Embedding count, order or dimension changed across the chain." },
  TOOLCHAIN_MISSING: { status: 424, summary: "An author command (build, test, dev, deploy) needs a compiler that is not installed: the AssemblyScript compiler (an optional peer dependency), cargo with the wasm32-unknown-unknown target, or clang with wasm-ld; the error names the exact command that installs it (`npm install -D`, `apt-get install`, or `rustup target add`)." },
  CONFIG_INVALID: { status: 400, summary: "Configuration or options are invalid; the error says which." },
  EVENT_INVALID: { status: 500, summary: "The host built an event that fails its schema (abi/events): a host bug. Thrown outside production; counted and dropped in production." },
  EVENT_SCHEMA_INVALID: { status: 400, summary: "A service's own event schema was refused: not draft 2020-12, no own versioned $id, an object left open, no envelope, or not additive to the version before it; the error says which rule." },
  CUSTOM_EVENT_INVALID: { status: 400, summary: "A service's own event fails the schema it was registered with (or names no registered schema); it was not dispatched." },

  // Registry and management API.
  MANIFEST_INVALID: { status: 400, summary: "The plugin manifest (hook.yaml) is not valid YAML or fails the manifest schema; details list the problems." },
  SAMPLE_INVALID: { status: 400, summary: "A plugin sample file (samples/*.json) is not valid JSON or lacks its name; the error names the file." },
  ID_INVALID: { status: 400, summary: "An id, version or reference is malformed (ids are [a-z0-9][a-z0-9-]{0,63}, versions are semver, refs are id@version)." },
  PLUGIN_NOT_FOUND: { status: 404, summary: "No plugin, or no version of it, is stored under that id (and version)." },
  VERSION_CONFLICT: { status: 409, summary: "That plugin version is already stored with different bytes or manifest; versions are immutable: bump the version." },
  PLUGIN_CONFIG_INVALID: { status: 400, summary: "The binding's config fails the plugin's config_schema; details list the errors." },
  BINDING_INVALID: { status: 400, summary: "The binding is invalid (e.g. its point is not declared by the plugin's manifest); the error says which field." },
  BINDING_NOT_FOUND: { status: 404, summary: "No binding with that id." },
  BINDING_CONFLICT: { status: 409, summary: "A binding with that id already exists." },
  RELEASE_NOT_FOUND: { status: 404, summary: "No published release with that revision (or no earlier one to roll back to)." },
  REQUEST_INVALID: { status: 400, summary: "The request body, parameters or query do not match the route's schema." },
  ROUTE_NOT_FOUND: { status: 404, summary: "No route matches the method and path; see the OpenAPI document." },
  UNAUTHORIZED: { status: 401, summary: "The bearer token is missing or wrong." },
  CONNECTIONS_FULL: { status: 503, summary: "The server holds as many connections as its cap (--max-connections), or (gateway) had no file descriptor left to reach the upstream; nothing was called, retry after the seconds in retry-after (OpenAI clients do)." },
  RATE_LIMITED: { status: 429, summary: "Too many failed authentications from this client address within the window; every request from it is refused until the window ends (retry-after says when)." },
  HOST_NOT_ALLOWED: { status: 403, summary: "The Host header names neither the address the server listens on nor a loopback name (a DNS-rebinding page, or a proxy that needs --allowed-host)." },
  ORIGIN_NOT_ALLOWED: { status: 403, summary: "The request comes from a web page of another origin (Origin or Sec-Fetch-Site header); the management API serves no browser pages." },
  MEDIA_TYPE_UNSUPPORTED: { status: 415, summary: "A request body must be sent as application/json." },
  PAYLOAD_TOO_LARGE: { status: 413, summary: "The request body or upload exceeds the server's size limit." },
  STORE_UNAVAILABLE: { status: 503, summary: "The registry's or the operation records' database (or the artifact folder) cannot be read or written." },
  STORE_FULL: { status: 507, summary: "The database has no room left (disk or quota full); nothing was written." },
  INTERNAL_ERROR: { status: 500, summary: "An unexpected error; the message is logged on the server, not returned." },

  // Operation records and resume.
  OPERATION_NOT_FOUND: { status: 404, summary: "No operation record with that id (records are kept only when the host has a records store)." },
  PAYLOADS_UNAVAILABLE: { status: 409, summary: "The operation's payloads are not in the payload store, so it cannot be replayed: the store is not enabled (`sluice serve --payload-store`), or they expired or were recorded before it was." },
  OPERATION_NOT_RESUMABLE: { status: 409, summary: "The operation cannot be resumed: it finished, never ran, or its real result is unknown (never retried automatically); details give its phase and real status." },
  RECORD_UNREADABLE: { status: 500, summary: "A stored record, real result or payload does not open: it is sealed under another key (hosts sharing a database must share the key: `--digest-key-file`), or its ciphertext was changed or moved to another row. Details name the column, the row and the key ids; never any content." },
  OPERATION_BUSY: { status: 409, summary: "Another live host (or this one) is running or resuming the operation now; retry once it ends, or once that host is gone and its lease has expired. Details name the operation and the owner." },
  OPERATION_NOT_AWAITING: { status: 409, summary: "The operation is not awaiting a result: its result was reported already (a repeated report is not applied twice), or it never awaited one (its before stage refused it, or it was not a call whose caller runs it). Details give its phase, real status and outcome." },
  OPERATION_RESULT_MISSING: { status: 504, summary: "The caller that runs the real call never reported its result (it expired, or the caller said it is lost): whether the call took effect is unknown, and it is never retried automatically." },

  // Gateway mode (OpenAI-compatible model gateway).
  GATEWAY_KEY_INVALID: { status: 401, summary: "The gateway API key is missing, unknown or revoked; send `Authorization: Bearer sk-sluice-...`." },
  GATEWAY_KEY_NOT_FOUND: { status: 404, summary: "No gateway API key with that id." },
  UPSTREAM_FAILED: { status: 502, summary: "The upstream model API could not be reached, answered with an error, or sent a malformed reply; details carry its status." },
  UPSTREAM_TOO_LARGE: { status: 502, summary: "The upstream model API's answer (or one stream event) exceeds the gateway's upstream size limit; it was not read further." },
  UPSTREAM_TIMEOUT: { status: 504, summary: "The upstream model API did not answer (or went silent mid-stream) within the gateway's upstream timeout." },
} as const satisfies Record<string, { status: number; summary: string }>;

/** A stable error code of the catalogue: what callers match on. */
export type ErrorCode = keyof typeof ERROR_CODES;
