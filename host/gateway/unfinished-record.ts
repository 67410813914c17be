/**
 * A call the gateway answers although its record's ending could not be written (the
 * records store failed after the real call: the answer stands, `facts.recordError`). The
 * operator is told, with the operation's id and the store's error code and nothing of the
 * call: its record reads `running` until the next start marks it `unknown`.
 */
import type { FastifyReply } from "fastify";
import type { ExecutionFacts } from "../records/facts.js";

export function logUnfinishedRecord(reply: FastifyReply, facts: ExecutionFacts): void {
  if (!facts.recordError) return;
  reply.log.warn({ event: "record.unfinished", operationId: facts.operationId, errorCode: facts.recordError.code }, "answered, but the operation's record could not be finished; it reads running until the next start marks it unknown");
}
