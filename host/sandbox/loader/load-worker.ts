/**
 * The loader thread: validates, bounds and compiles uploaded guests (core modules and
 * components) off the host's main thread. Compiling a 15 MB module or transpiling a 12 MB
 * component takes hundreds of milliseconds of synchronous engine work; here it holds only
 * this thread. It runs no guest code. The compiled modules go back by structured clone
 * (V8 shares the compiled code; nothing is recompiled on the other side).
 */
import { parentPort } from "node:worker_threads";
import { SluiceError } from "../../errors/sluice-error.js";
import { isComponent, loadComponent } from "./component/load-component.js";
import type { LoadOptions } from "../loaded-module.js";
import { prepareModule } from "./prepare-module.js";
import type { LoaderReply, LoaderRequest } from "../loader-protocol.js";

// binaryen (13 MB of JavaScript) takes a few hundred milliseconds to start: begun with the thread, not on the first load's clock.
void import("./fuel/meter.js").catch(() => {});

interface Incoming { bytes: Uint8Array; received: number; sha256: string; options: LoadOptions }
const incoming = new Map<number, Incoming>();

parentPort!.on("message", (msg: LoaderRequest) => {
  if (msg.kind === "begin") {
    incoming.set(msg.id, { bytes: new Uint8Array(msg.length), received: 0, sha256: msg.sha256, options: msg.options });
    if (msg.length === 0) start(msg.id);
    return;
  }
  const entry = incoming.get(msg.id);
  if (!entry) return;
  entry.bytes.set(msg.part, msg.offset);
  entry.received += msg.part.byteLength;
  if (entry.received >= entry.bytes.byteLength) start(msg.id);
});

function start(id: number): void {
  const req = incoming.get(id)!;
  incoming.delete(id);
  void prepare(req.bytes, req.sha256, req.options).then(
    (loaded): LoaderReply => ({ id, ok: true, loaded }),
    (err: unknown): LoaderReply => ({
      id,
      ok: false,
      error: err instanceof SluiceError ? err.toData() : { code: "MODULE_INVALID", message: `the module could not be loaded: ${(err as Error)?.message ?? String(err)}` },
    }),
  ).then((reply) => parentPort!.postMessage(reply));
}

function prepare(bytes: Uint8Array, sha256: string, options: LoadOptions) {
  return isComponent(bytes) ? loadComponent(bytes, sha256, options) : prepareModule(bytes, sha256, options);
}
