/** The CLI's client of the management API: JSON over fetch, errors rebuilt as SluiceErrors. */
import { SluiceError } from "../errors/sluice-error.js";
import type { ErrorCode } from "../errors/codes.js";
import { EXIT } from "./exit-codes.js";
import { CliError } from "./output.js";

export interface RemoteOptions {
  url: string;
  token?: string;
}

export class ApiClient {
  constructor(private readonly options: RemoteOptions) {}

  /** Sends a request; throws the server's error (with its code) on a non-2xx answer. */
  async request<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const url = new URL(path, this.options.url);
    let res: Response;
    try {
      res = await fetch(url, {
        method,
        headers: {
          ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
          ...(body !== undefined ? { "content-type": "application/json" } : {}),
        },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach ${this.options.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, "is the server running? Start it with `sluice serve`, or pass --url / set SLUICE_URL", EXIT.unreachable);
    }
    const text = await res.text();
    const json = text ? safeJson(text) : undefined;
    if (!res.ok) {
      const e = (json as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined)?.error;
      if (e?.code) throw new SluiceError(e.code as ErrorCode, e.message ?? res.statusText, e.details ?? {});
      throw new CliError(`${method} ${url.pathname} answered ${res.status} ${res.statusText}`, undefined, res.status === 404 ? EXIT.notFound : res.status < 500 ? EXIT.refused : EXIT.internal);
    }
    return json as T;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
