// One POST /chat/completions to an OpenAI-compatible provider, without the openai SDK on the way
// (issue 29): the SDK's request building (headers merged five times over, a log-details object, an
// idempotency key, an abort controller and a timer of its own) cost about a tenth of a model
// worker's CPU per call. What a failure looks like is unchanged: a non-2xx answer and a transport
// failure become the SDK's own APIError / APIConnectionError (built from the same parts the SDK
// builds them from), so upstream-failure.ts classifies them as before. The SDK is loaded only to
// build such an error; a call that succeeds never loads it.
import type * as OpenAISdkModule from 'openai';

let sdk: typeof OpenAISdkModule | undefined;

/** The SDK's error classes, once a failure needed them (undefined until then). */
export function loadedSdk(): typeof OpenAISdkModule | undefined {
  return sdk;
}

const loadSdk = async (): Promise<typeof OpenAISdkModule> => (sdk ??= await import('openai'));

export interface ChatRequestTarget {
  /** The provider's base URL (…/v1); the call goes to its /chat/completions. */
  baseUrl: string;
  apiKey: string | undefined;
  fetch: typeof fetch;
}

/** The endpoint as the SDK builds it: the base URL and the path, with one slash between. */
export function completionsUrl(baseUrl: string): string {
  return baseUrl.endsWith('/') ? `${baseUrl}chat/completions` : `${baseUrl}/chat/completions`;
}

/** Never parsing as JSON is a plain-text error body. */
function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Sends the request; resolves with a 2xx response whose body is the event stream. Rejects with
 * the SDK's APIError for any other status, APIConnectionError when the request could not be made,
 * and the fetch's own error when `signal` stopped it.
 */
export async function postChatCompletion(
  target: ChatRequestTarget,
  url: string,
  body: unknown,
  signal: AbortSignal,
  extraHeaders: Record<string, string> | undefined,
): Promise<Response> {
  const headers: Record<string, string> = {
    accept: 'application/json',
    'content-type': 'application/json',
    'user-agent': 'agent-service',
  };
  if (target.apiKey) headers['authorization'] = `Bearer ${target.apiKey}`;
  // A node's own headers come last and win, as they did over the SDK's.
  if (extraHeaders) for (const [name, value] of Object.entries(extraHeaders)) headers[name.toLowerCase()] = value;
  let response: Response;
  try {
    response = await target.fetch(url, { method: 'POST', headers, body: JSON.stringify(body), signal });
  } catch (error) {
    if (signal.aborted) throw error;
    const { APIConnectionError } = await loadSdk();
    throw new APIConnectionError({ message: undefined, cause: error instanceof Error ? error : undefined });
  }
  if (response.ok) return response;
  const text = await response.text().catch((error: unknown) => (error instanceof Error ? error.message : ''));
  const json = parseOrUndefined(text);
  const { APIError } = await loadSdk();
  throw APIError.generate(
    response.status,
    json as object | undefined,
    json === undefined ? text : undefined,
    response.headers,
  );
}
