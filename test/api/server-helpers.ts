/** A management API server on loopback for the hardening tests, and raw HTTP helpers. */
import { request as httpRequest } from "node:http";
import { connect, type Socket } from "node:net";
import { startApiServer, type ServeOptions } from "../../host/api/server.js";
import { Registry } from "../../host/registry/registry.js";
import { tempDir } from "../registry/fixtures.js";

export const TOKEN = "hardening-token-0123456789-abcdefghijklmn";

export interface Served { url: string; port: number; registry: Registry; dataDir: string; close: () => Promise<void> }

export async function serveApi(options: Partial<ServeOptions> = {}): Promise<Served> {
  const dataDir = tempDir();
  const registry = await Registry.open({ dataDir, hostOptions: { workers: 1 } });
  const server = await startApiServer({ registry, token: TOKEN, host: "127.0.0.1", port: 0, logger: false, ...options });
  return { url: server.url, port: Number(new URL(server.url).port), registry, dataDir, close: async () => { await server.close(); await registry.close(); } };
}

export interface RawResponse { status: number; headers: Record<string, string | string[] | undefined>; body: any }

/** One request with exactly these headers (fetch would not let a test set Host). */
export function raw(s: Served, method: string, path: string, headers: Record<string, string>, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port: s.port, method, path, headers: { ...(body !== undefined ? { "content-length": String(Buffer.byteLength(body)) } : {}), ...headers } }, (res) => {
      let text = "";
      res.on("data", (d: Buffer) => { text += d; });
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body: text ? JSON.parse(text) : undefined }));
    });
    req.on("error", reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export const auth = { authorization: `Bearer ${TOKEN}` };
export const json = { ...auth, "content-type": "application/json" };

export async function call(s: Served, method: string, path: string, body?: unknown): Promise<RawResponse> {
  return raw(s, method, path, body === undefined ? { ...auth, host: `127.0.0.1:${s.port}` } : { ...json, host: `127.0.0.1:${s.port}` }, body === undefined ? undefined : JSON.stringify(body));
}

/** A socket to the server, with what it received and when it closed. */
export function socketTo(s: Served): Promise<{ socket: Socket; received: () => string; closed: Promise<number> }> {
  return new Promise((resolve, reject) => {
    let text = "";
    const socket = connect(s.port, "127.0.0.1");
    const started = Date.now();
    const closed = new Promise<number>((done) => socket.once("close", () => done(Date.now() - started)));
    socket.on("data", (d) => { text += d; });
    socket.on("error", () => {});
    socket.once("connect", () => resolve({ socket, received: () => text, closed }));
    socket.once("error", reject);
  });
}
