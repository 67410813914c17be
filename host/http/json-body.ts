/**
 * The JSON body parser of the API and the gateway: Fastify's own (prototype-poisoning
 * checks included) behind a nesting limit. A body nested thousands deep parses, but then
 * overflows the stack of every recursive step after it (schema checks, canonical JSON,
 * msgpack) and would end in a 500; it is refused here with REQUEST_INVALID first.
 * Only application/json is parsed: Fastify's text/plain parser is removed, so a body a
 * web page can send without a CORS preflight is refused with MEDIA_TYPE_UNSUPPORTED.
 */
import type { FastifyInstance } from "fastify";
import { SluiceError } from "../errors/sluice-error.js";

/** Deeper bodies are refused. Tool schemas and chat messages stay far below it. */
export const BODY_MAX_DEPTH = 128;

/** The deepest nesting of `[` and `{` in JSON text outside strings, stopping once past `max`. */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) { if (++depth > max) return true; }
    else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** Replaces the default parsers of `app` with the depth-limited JSON parser. */
export function installJsonBody(app: FastifyInstance, maxDepth = BODY_MAX_DEPTH): void {
  const parse = app.getDefaultJsonParser("error", "error");
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    const text = body as string;
    if (jsonDepthExceeds(text, maxDepth)) {
      done(new SluiceError("REQUEST_INVALID", `the request body is nested deeper than ${maxDepth} levels`, { limit: "depth", max: maxDepth }), undefined);
      return;
    }
    parse(request, text, done);
  });
}
