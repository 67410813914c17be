/**
 * What an action will change in the serving release, with direction, for the question
 * `confirmOnTerminal` asks (confirm.ts): read from the server, diffed with the one diff
 * the console uses (pipeline/release-diff.ts).
 */
import { diffReleases, summarize, type Release } from "../pipeline/release-diff.js";
import { rollbackTarget } from "../registry/rollback.js";
import type { AnswerOf, ApiClient } from "./client.js";

type ReleaseList = AnswerOf<"/api/v1/releases">;

const EMPTY: Release = { revision: 0, order_mode: "staged", bindings: [] };

async function releases(client: ApiClient): Promise<ReleaseList> {
  return client.call<ReleaseList>(client.api.GET("/api/v1/releases"));
}

function lines(list: ReleaseList, target: Release, what: string): string[] {
  const active = list.items.find((r) => r.revision === list.active_revision) ?? EMPTY;
  return [`${what}: active revision ${list.active_revision} → ${target.revision || "draft"}`, ...summarize(diffReleases(active, target))];
}

/** The revision a rollback activates (named, or the one before the active one) and what it changes; undefined when the server would refuse. */
export async function rollbackPreview(client: ApiClient, to: number | undefined): Promise<string[] | undefined> {
  const list = await releases(client);
  const revision = to ?? rollbackTarget(list.activations);
  const target = list.items.find((r) => r.revision === revision);
  if (!target) return undefined;
  return [...lines(list, target, "rollback"), `the draft is reset to revision ${target.revision}`];
}

export async function activatePreview(client: ApiClient, revision: number): Promise<string[] | undefined> {
  const list = await releases(client);
  const target = list.items.find((r) => r.revision === revision);
  return target ? lines(list, target, "activate") : undefined;
}

/** The draft against the active release: what `publish --activate` will serve. */
export async function publishPreview(client: ApiClient): Promise<string[]> {
  const list = await releases(client);
  const { items } = await client.call<AnswerOf<"/api/v1/bindings">>(client.api.GET("/api/v1/bindings"));
  return lines(list, { revision: 0, order_mode: list.items.find((r) => r.revision === list.active_revision)?.order_mode ?? "staged", bindings: items }, "publish and activate the draft");
}
