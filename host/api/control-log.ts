/**
 * Records control actions in the control audit (records/control-audit-store.ts): the route
 * that acted calls {@link ControlLog.record} after it succeeded, with what changed. A failed
 * action changed nothing and is not recorded. The audit is part of the action: when it
 * cannot be written the request fails CONTROL_AUDIT_UNWRITTEN, which says the change itself
 * stands (STORE_UNAVAILABLE would promise that nothing was written).
 */
import type { FastifyRequest } from "fastify";
import { controlEntryId, type ControlAction, type ControlAuditEntry, type ControlAuditStore, type ControlChangeItem } from "../records/control-audit-store.js";
import { actorOf } from "./auth.js";
import { SluiceError } from "../errors/sluice-error.js";

export interface ControlDetail {
  target?: string | null;
  revision?: number | null;
  changes?: ControlChangeItem[];
}

export class ControlLog {
  constructor(readonly store: ControlAuditStore) {}

  async record(request: FastifyRequest, action: ControlAction, detail: ControlDetail = {}): Promise<ControlAuditEntry> {
    const actor = actorOf(request);
    const now = Date.now();
    const entry: ControlAuditEntry = {
      id: controlEntryId(now), at: new Date(now).toISOString(), action, tokenId: actor.id, tokenName: actor.name, role: actor.role,
      target: detail.target ?? null, revision: detail.revision ?? null, changes: detail.changes ?? [],
    };
    try {
      await this.store.append(entry);
    } catch (err) {
      throw new SluiceError("CONTROL_AUDIT_UNWRITTEN", `${action} was made, but its control-audit entry could not be written: ${(err as Error)?.message ?? String(err)}`, { action, target: entry.target }, { cause: err });
    }
    return entry;
  }
}
