/**
 * The CLI's client of the management API: openapi-fetch, typed by the paths of the API's
 * own OpenAPI document (api-types.ts, generated from what the server serves), with errors
 * rebuilt as SluiceErrors.
 */
import createClient, { type Client } from "openapi-fetch";
import { SluiceError } from "../errors/sluice-error.js";
import type { ErrorCode } from "../errors/codes.js";
import type { paths } from "./api-types.js";

export type { paths };
import { EXIT } from "./exit-codes.js";
import { CliError } from "./output.js";

/** The token a command sends, and where it was found (an auth failure names it). */
export interface TokenSource {
  token?: string;
  /** "SLUICE_TOKEN", "--token", "--token-file <file>", a default file's path, or "nowhere". */
  from: string;
  /** Without a token: every place looked in. */
  looked: readonly string[];
}

export interface RemoteOptions {
  url: string;
  token?: string;
  tokenSource?: TokenSource;
}

/**
 * The JSON body of `method` at `path`, as the document declares it. The CLI forwards what
 * the user typed as this type: the server checks it and names the offending field.
 */
export type BodyOf<P extends keyof paths, M extends keyof paths[P]> = paths[P][M] extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

/**
 * The JSON body `method` at `path` answers with `status`, as the document declares it (the
 * routes' response schemas): what the CLI and the console read, never retyped by hand.
 * @example type Plugins = AnswerOf<"/api/v1/plugins">; type Created = AnswerOf<"/api/v1/tokens", "post", 201>;
 */
export type AnswerOf<P extends keyof paths, M extends keyof paths[P] = "get" & keyof paths[P], S extends number = 200> =
  paths[P][M] extends { responses: { [K in S]: { content: { "application/json": infer T } } } } ? T : never;

/** What every openapi-fetch call resolves to. */
interface Answer { data?: unknown; error?: unknown; response: Response }

export class ApiClient {
  /** The typed client: `api.GET("/api/v1/bindings/{id}", { params: { path: { id } } })`. */
  readonly api: Client<paths>;

  constructor(private readonly options: RemoteOptions) {
    const token = options.token ?? options.tokenSource?.token;
    this.api = createClient<paths>({ baseUrl: options.url, headers: token ? { authorization: `Bearer ${token}` } : {} });
  }

  /**
   * The body of a 2xx answer; throws the server's error (with its code) otherwise, and a
   * CliError saying what to do when the server cannot be reached. `T` narrows the
   * document's open object schemas to what the command reads.
   */
  async call<T = Record<string, unknown>>(request: Promise<Answer>): Promise<T> {
    let answer: Answer;
    try {
      answer = await request;
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new CliError(`cannot reach ${this.options.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, "is the server running? Start it with `sluice serve`, or pass --url / set SLUICE_URL", EXIT.unreachable);
    }
    const { response: res } = answer;
    if (!res.ok) {
      const e = (answer.error as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined)?.error;
      if (e?.code === "UNAUTHORIZED" && this.options.tokenSource) throw this.unauthorized(e.message ?? res.statusText);
      if (e?.code) throw new SluiceError(e.code as ErrorCode, e.message ?? res.statusText, e.details ?? {});
      throw new CliError(`${new URL(res.url || this.options.url).pathname} answered ${res.status} ${res.statusText}`, undefined, res.status === 404 ? EXIT.notFound : res.status < 500 ? EXIT.refused : EXIT.internal);
    }
    return answer.data as T;
  }

  /** The server's refusal, plus where this command looked for the token (the server cannot know). */
  private unauthorized(message: string): SluiceError {
    const source = this.options.tokenSource!;
    const where = source.token !== undefined ? `sent the token from ${source.from}` : `no token found: looked in ${source.looked.join(", ")}`;
    return new SluiceError("UNAUTHORIZED", `${message} (${where})`, source.token !== undefined ? { token_from: source.from } : { looked: source.looked });
  }
}
