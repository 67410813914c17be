import type { ServerResponse } from "node:http";

/**
 * Aborts when the client goes away before its answer is complete. The response's
 * `close` is the one event that fires for both a dropped socket and a finished answer
 * (the request's `close` fires as soon as its body is read), so `writableFinished` tells
 * the two apart.
 */
export function clientSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  if (res.destroyed) controller.abort(new DOMException("the client disconnected", "AbortError"));
  else res.once("close", () => { if (!res.writableFinished) controller.abort(new DOMException("the client disconnected", "AbortError")); });
  return controller.signal;
}
