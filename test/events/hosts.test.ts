/**
 * One observer shared by several hosts (a documented setup: shared listeners and
 * metrics): each host's state stays its own, and every event says which host sent it.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHost, createObserver, type Host, type Observer } from "../../host/index.js";
import { validateEvent, type EventOf, type SluiceEvent } from "../../abi/events/index.js";

let observer: Observer;
let h1: Host;
let h2: Host;
const events: SluiceEvent[] = [];
beforeAll(() => {
  observer = createObserver();
  h1 = createHost({ workers: 1, observer, hostId: "h1" });
  h2 = createHost({ workers: 1, observer });
  observer.on((e) => { events.push(e); });
});
afterAll(async () => { await h1.close(); await h2.close(); });

describe("an observer shared by two hosts", () => {
  it("tracks each host's previous release apart, and names the host in release.activated", async () => {
    h1.activate({ revision: 5, bindings: [] });
    h2.activate({ revision: 1, bindings: [] });
    h1.activate({ revision: 6, bindings: [] });
    h2.activate({ revision: 2, bindings: [] });
    await observer.flush();
    const releases = events.filter((e): e is EventOf<"release.activated"> => e.type === "release.activated");
    expect(releases.map((e) => [e.host_id, e.revision, e.previous_revision])).toEqual([["h1", 5, null], [h2.id, 1, null], ["h1", 6, 5], [h2.id, 2, 1]]);
  });

  it("names the host (a UUID unless hostId is given) and the space in the events of each host's calls", async () => {
    events.length = 0;
    expect(h2.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    const call = { toolId: "t", name: "t", schema: { type: "object" }, arguments: {}, callId: "c" };
    await h1.tool({ spaceId: "space-1" }, call, async () => 1);
    await h2.tool({ spaceId: "space-2" }, call, async () => 2);
    await observer.flush();
    for (const e of events) expect(validateEvent(e)).toEqual({ ok: true });
    expect(events.map((e) => [e.type, e.host_id, (e as { space_id?: string }).space_id])).toEqual([
      ["tool.invocation.requested", "h1", "space-1"], ["tool.invocation.completed", "h1", "space-1"],
      ["tool.invocation.requested", h2.id, "space-2"], ["tool.invocation.completed", h2.id, "space-2"],
    ]);
  });
});
