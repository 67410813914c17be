/**
 * Piscina's worker entry. Piscina loads its worker file with require() first, and on
 * Node 20.19+ require() of an ES module instantiates it synchronously: a worker
 * terminated in that window (a pool closed or a watchdog firing while a replacement
 * starts) aborts the whole process with V8's "IsGraphAsync must be used on an
 * instantiated module". This CommonJS entry loads the ES worker with import(), which
 * a termination only rejects; Piscina awaits the exported promise (the module, then its
 * warm-up) before it sends the worker any task.
 */
export = import("./worker.js").then((worker) => worker.ready.then(() => worker.default));
