/**
 * A gateway shutting down (SIGTERM to `sluice serve` closes it): a request already running
 * finishes with its answer, which says `connection: close`, and a connection whose answer
 * began before the close (a stream) is closed as soon as it is idle. Node would keep both
 * until the keep-alive timeout (60 s here), and the shutdown waited for them; a client would
 * send its next request on a connection about to go away.
 */
import { connect, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startGateway, type GatewayUnderTest } from "./setup.js";
import { until } from "../helpers/until.js";

const KEEP_ALIVE_MS = 60_000;
const running: GatewayUnderTest[] = [];
afterEach(async () => {
  for (const gw of running.splice(0)) await gw.close().catch(() => {});
});

async function gateway(): Promise<GatewayUnderTest> {
  const gw = await startGateway({ timeoutMs: 300, limits: { keepAliveTimeoutMs: KEEP_ALIVE_MS, idleTimeoutMs: KEEP_ALIVE_MS } });
  gw.bind([]);
  running.push(gw);
  return gw;
}

function request(content: string, key: string, stream = false): string {
  const body = JSON.stringify({ model: "m1", messages: [{ role: "user", content }], stream });
  return `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\nauthorization: Bearer ${key}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
}

/** A raw keep-alive connection: what it received, and whether the server closed it. */
function open(gw: GatewayUnderTest): { socket: Socket; received: () => string; closedByServer: Promise<void> } {
  const socket = connect((gw.app.server.address() as AddressInfo).port, "127.0.0.1");
  let raw = "";
  socket.setEncoding("utf8");
  socket.on("data", (d: string) => { raw += d; });
  socket.on("error", () => {});
  return { socket, received: () => raw, closedByServer: new Promise((resolve) => socket.on("end", () => resolve())) };
}

/** Settles with "timeout" if `p` takes longer than `ms` (a twentieth of the keep-alive timeout it must not wait for). */
const within = <T>(p: Promise<T>, ms = KEEP_ALIVE_MS / 20) => Promise.race([p.then(() => "done" as const), new Promise<"timeout">((r) => setTimeout(() => r("timeout"), ms))]);

describe("a gateway shutting down", () => {
  it("finishes the running request, answers it with connection: close, and closes without waiting for the keep-alive timeout", async () => {
    const gw = await gateway();
    const conn = open(gw);
    const calls = gw.stub.chatCalls;
    conn.socket.write(request("[slow] running at the close", gw.key.key));
    await until(() => gw.stub.chatCalls > calls);
    const closed = gw.app.close();
    expect(await within(conn.closedByServer)).toBe("done");
    expect(await within(closed)).toBe("done");
    const raw = conn.received();
    expect(raw).toMatch(/^HTTP\/1\.1 200 /);
    expect(raw).toMatch(/\r\nconnection: close\r\n/i);
    expect(raw).toContain("You said: [slow] running at the close");
  });

  it("closes a stream's connection once the stream has ended, not at the keep-alive timeout", async () => {
    const gw = await gateway();
    const conn = open(gw);
    // One chunk, then the upstream goes silent until the gateway's upstream timeout (300 ms) ends the stream.
    conn.socket.write(request("[stall]", gw.key.key, true));
    await until(() => conn.received().includes("data: "));
    expect(conn.received()).toMatch(/\r\nconnection: keep-alive\r\n/i);
    const closed = gw.app.close();
    expect(await within(conn.closedByServer)).toBe("done");
    expect(await within(closed)).toBe("done");
    expect(conn.received()).toContain("UPSTREAM_TIMEOUT");
  });
});
