/**
 * Every storage engine the contract suites run against. A new engine joins every suite by
 * appending one entry to STORE_ENGINES; a store an engine does not have is left out (the
 * suites skip that engine for that store, they never fake it).
 */
import type { RegistryStore } from "../../host/registry/store.js";
import type { OperationStore, PayloadStore } from "../../host/records/store.js";
import type { GatewayKeyStore } from "../../host/gateway/key-store.js";
import type { QuarantineStore } from "../../host/reliability/quarantine-store.js";
import type { KvStore } from "../../host/sandbox/kv-store.js";

export interface StoreEngine {
  name: string;
  /** Each factory opens a fresh, empty, migrated store; the suite closes it. */
  registry?: () => Promise<RegistryStore>;
  records?: (options?: { resultRetentionMs?: number }) => Promise<OperationStore>;
  payloads?: (options: { retentionMs: number }) => Promise<PayloadStore>;
  gatewayKeys?: () => Promise<GatewayKeyStore>;
  quarantine?: () => Promise<QuarantineStore>;
  kv?: () => Promise<KvStore>;
}

export const STORE_ENGINES: StoreEngine[] = [];
