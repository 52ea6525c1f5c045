// The REST client of the command-line program. Every failure becomes one line that names the server
// tried and, where it helps, what to do next.
import { CliError } from './errors.ts';
import type { Credential } from './credentials.ts';
import type { ServerAddress } from './server-address.ts';

export interface RequestOptions {
  body?: unknown;
  form?: FormData;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  UND_ERR_CONNECT_TIMEOUT: 'connect timed out',
  UND_ERR_SOCKET: 'connection closed',
};

/** A TLS handshake answered by something that is not TLS (an HTTP server on that port). */
function isTlsMismatch(cause: { code?: string; message?: string } | undefined): boolean {
  const text = `${cause?.code ?? ''} ${cause?.message ?? ''}`;
  return /EPROTO|SSL|wrong version number|packet length too long|unexpected eof/i.test(text);
}

export class ApiClient {
  constructor(
    readonly server: ServerAddress,
    readonly credential: Credential | undefined,
  ) {}

  get url(): string {
    return this.server.url;
  }

  /** Sends a request and answers the response when it is 2xx; anything else throws a CliError. */
  async send(method: string, path: string, options: RequestOptions = {}): Promise<Response> {
    const target = new URL(`${this.server.url}${path.startsWith('/health') ? '' : '/api/v1'}${path}`);
    for (const [key, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) target.searchParams.set(key, String(value));
    const headers = new Headers(options.headers);
    if (this.credential) headers.set('authorization', `Bearer ${this.credential.value}`);
    let body: string | FormData | undefined;
    if (options.form) body = options.form;
    else if (options.body !== undefined) {
      headers.set('content-type', 'application/json');
      body = JSON.stringify(options.body);
    }
    let response: Response;
    try {
      response = await fetch(target, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if ((error as Error).name === 'AbortError') throw error;
      throw this.unreachable(error);
    }
    if (response.ok) return response;
    throw await this.failure(response);
  }

  async json<T = unknown>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
    const response = await this.send(method, path, options);
    const text = await response.text();
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new CliError(`${this.server.url} answered ${method} ${path} with something that is not JSON`);
    }
  }

  get<T = unknown>(path: string, query?: RequestOptions['query']): Promise<T> {
    return this.json<T>('GET', path, query ? { query } : {});
  }

  /** Every item of a paginated list (pages of 100, the server's largest). */
  async all<T>(path: string, query: RequestOptions['query'] = {}): Promise<{ data: T[]; total: number }> {
    const data: T[] = [];
    for (let page = 1; ; page++) {
      const answer = await this.get<{ data: T[]; total: number }>(path, { ...query, page, size: 100 });
      data.push(...answer.data);
      if (answer.data.length < 100 || data.length >= answer.total) return { data, total: answer.total };
    }
  }

  unreachable(error: unknown): CliError {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    if (this.server.url.startsWith('https:') && isTlsMismatch(cause)) {
      const plain = this.server.url.replace(/^https:/, 'http:');
      return new CliError(
        `${this.server.url} does not answer HTTPS: it looks like a plain HTTP server; use --url ${plain}`,
      );
    }
    const reason = (cause?.code && REASONS[cause.code]) ?? cause?.message ?? (error as Error).message;
    const source = this.server.source;
    const from =
      source === '--url'
        ? ''
        : source === 'default'
          ? ' (the default address: no --url, SERVICE_URL or config file)'
          : ` (address from ${source}; set --url or SERVICE_URL)`;
    return new CliError(
      `cannot reach ${this.server.url} (${reason})${from}; is the server running? start it with: agent-service serve`,
    );
  }

  private async failure(response: Response): Promise<CliError> {
    const text = await response.text().catch(() => '');
    let message = text.trim().slice(0, 300) || response.statusText;
    try {
      const parsed = JSON.parse(text) as { error?: unknown };
      if (typeof parsed.error === 'string') message = parsed.error;
    } catch {
      // not JSON: keep the text
    }
    const status = response.status;
    if (status === 401) {
      const hint =
        this.credential?.kind === 'env'
          ? 'check SERVICE_API_KEY, or unset it and run: agent-service login'
          : this.credential?.kind === 'login'
            ? 'the login has expired or was revoked; run: agent-service login'
            : 'run: agent-service login';
      return new CliError(`${this.server.url} refused the request (401: ${message}); ${hint}`);
    }
    if (status === 403) return new CliError(`${this.server.url} refused the request (403: ${message})`);
    return new CliError(`${message} (HTTP ${status} from ${this.server.url})`);
  }
}
