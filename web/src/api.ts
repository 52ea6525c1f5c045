// The one way the UI talks to the server: JSON requests and server-sent-event streams under
// /api/v1, with the login token of this tab. A 401 sends the user to the login page; other
// errors are shown as toasts (unless the caller asks to handle them itself) and thrown.
import { href, navigate } from './router.ts';
import { createStore } from './store.ts';
import { toast } from './ui/toast.tsx';

export const API_BASE = '/api/v1';
const TOKEN_KEY = 'agent-service.token';

/** status 0: the server could not be reached at all. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }

  /**
   * The request field an error names (`body.schedule: ...` or `schedule: ...` give "schedule") and
   * what is wrong with it, in words; undefined for other errors.
   */
  get field(): { name: string; problem: string } | undefined {
    const match = /^(?:body\.)?([\w.]+): (.+)$/s.exec(this.message);
    return match ? { name: match[1] ?? '', problem: match[2] ?? '' } : undefined;
  }
}

/** Whether this tab holds a login token (kept per tab, in sessionStorage). */
export const signedIn = createStore<boolean>(sessionStorage.getItem(TOKEN_KEY) !== null);

/** The login token of this tab, for connections that cannot use `request` (WebSockets). */
export function currentToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(token: string | null): void {
  if (token === null) sessionStorage.removeItem(TOKEN_KEY);
  else sessionStorage.setItem(TOKEN_KEY, token);
  signedIn.set(token !== null);
}

/** Where the login page returns to. */
let returnTo = href('chat');

function requireLogin(): void {
  setToken(null);
  if (window.location.pathname !== href('login')) {
    returnTo = window.location.pathname + window.location.search;
    navigate(href('login'), { replace: true });
  }
}

export function afterLogin(): void {
  navigate(returnTo, { replace: true });
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Do not toast errors: the caller shows them itself. */
  quiet?: boolean;
}

export function apiUrl(path: string, query: RequestOptions['query'] = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) search.set(name, String(value));
  const text = search.toString();
  return `${API_BASE}${path}${text ? `?${text}` : ''}`;
}

async function errorText(response: Response): Promise<string> {
  try {
    const body = (await response.json()) as { error?: unknown };
    if (typeof body.error === 'string') return body.error;
  } catch {
    // Not JSON (a proxy's page): the status is all we know.
  }
  return `the server answered ${response.status} ${response.statusText}`.trim();
}

/** Sends a request; resolves with the Response of a 2xx answer, throws ApiError otherwise. */
export async function request(path: string, options: RequestOptions = {}): Promise<Response> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const headers: Record<string, string> = { ...options.headers };
  if (token) headers['authorization'] = `Bearer ${token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(apiUrl(path, options.query), {
      method: options.method ?? 'GET',
      headers,
      ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    const failure = new ApiError(0, 'The server cannot be reached. Check that it is running.');
    if (!options.quiet) toast(failure.message, 'error');
    throw failure;
  }
  if (response.status === 401 && path !== '/auth/login') {
    requireLogin();
    throw new ApiError(401, await errorText(response));
  }
  if (!response.ok) {
    const failure = new ApiError(response.status, await errorText(response));
    if (!options.quiet) toast(failure.message, 'error');
    throw failure;
  }
  return response;
}

/** A JSON request; the answer's body parsed. */
export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const response = await request(path, options);
  return (await response.json()) as T;
}

/** Every item of a paginated list (pages of 100). */
export async function apiAll<T>(path: string, options: RequestOptions = {}): Promise<T[]> {
  const items: T[] = [];
  for (let page = 1; ; page++) {
    const answer = await api<{ data: T[]; total: number }>(path, {
      ...options,
      query: { ...options.query, page, size: 100 },
    });
    items.push(...answer.data);
    if (answer.data.length === 0 || items.length >= answer.total) return items;
  }
}

/**
 * Posts `body` and yields the JSON payload of each `data:` line of the event-stream answer, until
 * `data: [DONE]` or the end. Errors before the stream starts are thrown like request()'s.
 */
export async function* streamEvents(
  path: string,
  body: unknown,
  options: Omit<RequestOptions, 'body' | 'method'> = {},
): AsyncGenerator<unknown> {
  const response = await request(path, { ...options, method: 'POST', body });
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data === '') continue;
      if (data === '[DONE]') return;
      yield JSON.parse(data) as unknown;
    }
  }
}
