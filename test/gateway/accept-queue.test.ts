/**
 * A burst of new connections while the event loop is busy (1,000 clients): the
 * kernel holds them in the listening socket's accept queue until the server takes them. Node
 * asks for a queue of 511 unless told otherwise; past it the kernel drops SYNs, which clients
 * send again only a second later. The servers ask for their connection cap (clamped by the
 * kernel's somaxconn), so a burst the size of a busy gateway's connects at once.
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startGateway, type GatewayUnderTest } from "./setup.js";

const somaxconn = Number(readFileSync("/proc/sys/net/core/somaxconn", "utf8"));
// More than Node's default queue, within what the kernel allows.
const BURST = Math.min(1_500, somaxconn - 16);

let gw: GatewayUnderTest;
beforeAll(async () => { gw = await startGateway(); });
afterAll(() => gw.close());

/** In another process (this one's event loop is held meanwhile): opens `n` connections at once and counts those the kernel completed within `ms`. */
const CLIENT = `
const net = require("node:net");
const [port, n, ms] = process.argv.slice(1).map(Number);
let connected = 0;
const sockets = [];
process.stdout.write("go\\n");
for (let i = 0; i < n; i++) { const s = net.connect(port, "127.0.0.1", () => { connected++; }); s.on("error", () => {}); sockets.push(s); }
setTimeout(() => { process.stdout.write(String(connected) + "\\n"); for (const s of sockets) s.destroy(); process.exit(0); }, ms);
`;

describe("the accept queue", () => {
  it("holds a burst of more than 511 new connections while the event loop is busy, none waiting for a resent SYN", async () => {
    expect(somaxconn).toBeGreaterThan(600);
    const port = (gw.app.server.address() as AddressInfo).port;
    const child = spawn(process.execPath, ["-e", CLIENT, String(port), String(BURST), "700"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.setEncoding("utf8");
    await new Promise<void>((resolve) => child.stdout.on("data", (d: string) => { out += d; if (out.includes("go\n")) resolve(); }));
    // Hold this event loop (the server's) while the burst arrives: nothing is accepted until it ends.
    const until = Date.now() + 400;
    while (Date.now() < until) { /* busy */ }
    await new Promise<void>((resolve) => child.on("exit", () => resolve()));
    const connected = Number(out.trim().split("\n").at(-1));
    expect(connected).toBe(BURST);
  });
});
