import { SluiceError } from "../errors/sluice-error.js";
import type { Host } from "../host.js";
import type { OperationStore } from "../records/store.js";

/** The host's records store; CONFIG_INVALID when the server's host keeps none (the routes that read records answer so). */
export function recordsOf(host: Host): OperationStore {
  const store = host.records;
  if (!store) throw new SluiceError("CONFIG_INVALID", "this server's host keeps no operation records; start it with a records store");
  return store;
}
