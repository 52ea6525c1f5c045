import { readCapped } from '../../core/read-capped.ts';
import { z } from 'zod';
import { messageResolver, Template } from '../template.ts';
import type { NodeDefinition, RuleMessage } from '../types.ts';

const configSchema = z.object({
  restEndpointUrlPattern: z.string().min(1).meta({
    label: 'URL',
    description: 'Endpoint URL; ${metadata.key}, ${msg.key} and ${vars.key} are replaced.',
  }),
  requestMethod: z
    .enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'])
    .default('POST')
    .meta({ label: 'Method', description: 'HTTP method.' }),
  headers: z
    .record(z.string(), z.string())
    .default({})
    .meta({ label: 'Headers', description: 'Request headers; values are templated like the URL.' }),
  readTimeoutMs: z
    .number()
    .int()
    .min(0)
    .default(2000)
    .meta({ label: 'Timeout (ms)', description: 'Time limit of the whole request; 0 for none.' }),
  maxParallelRequestsCount: z
    .number()
    .int()
    .min(1)
    .default(200)
    .meta({ label: 'Max parallel', description: 'Requests this node sends at once; more wait their turn.' }),
  withoutRequestBody: z
    .boolean()
    .default(false)
    .meta({ label: 'No body', description: 'Send no request body even for POST/PUT/PATCH.' }),
});

type Config = z.infer<typeof configSchema>;

export const restApiCallNode: NodeDefinition<Config> = {
  type: 'restApiCall',
  label: 'REST call',
  description: 'Calls an HTTP endpoint; the response body becomes the message data.',
  category: 'external',
  relations: ['Success', 'Failure'],
  configSchema,
  create(config, { vars }) {
    const url = Template.compile(config.restEndpointUrlPattern);
    const headers = Object.entries(config.headers).map(
      ([name, value]) => [name, Template.compile(value)] as const,
    );
    const slots = new Slots(config.maxParallelRequestsCount);
    return {
      async process(message, context) {
        const resolve = messageResolver(message, vars);
        const requestHeaders: Record<string, string> = {};
        for (const [name, value] of headers) requestHeaders[name] = value.render(resolve);
        const withBody = !config.withoutRequestBody && !['GET', 'HEAD'].includes(config.requestMethod);
        if (withBody && !hasHeader(requestHeaders, 'content-type')) {
          requestHeaders['content-type'] = message.dataType === 'JSON' ? 'application/json' : 'text/plain';
        }
        const signal =
          config.readTimeoutMs > 0
            ? AbortSignal.any([context.signal, AbortSignal.timeout(config.readTimeoutMs)])
            : context.signal;
        await slots.acquire();
        try {
          const response = await fetch(url.render(resolve), {
            method: config.requestMethod,
            headers: requestHeaders,
            ...(withBody ? { body: message.data } : {}),
            signal,
          }).catch((error: unknown) => {
            throw describeFetchError(error, context.signal, config.readTimeoutMs);
          });
          const body = await readCapped(response, MAX_RESPONSE_BYTES);
          return [answer(message, response, body)];
        } finally {
          slots.release();
        }
      },
    };
  },
};

/** The largest answer a restApiCall node reads; a bigger one ends the node in Failure. */
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

function answer(
  message: RuleMessage,
  response: Response,
  body: string,
): { relation: string; message: RuleMessage } {
  const metadata: Record<string, string> = {
    ...message.metadata,
    status: `${response.status} ${response.statusText}`.trim(),
    statusCode: String(response.status),
  };
  if (!response.ok) {
    metadata['errorMsg'] = `HTTP ${response.status}: ${body.slice(0, 500)}`;
    return { relation: 'Failure', message: { ...message, metadata, data: body } };
  }
  const isJson = (response.headers.get('content-type') ?? '').includes('json');
  return {
    relation: 'Success',
    message: { ...message, metadata, data: body, dataType: isJson ? 'JSON' : 'TEXT' },
  };
}

function describeFetchError(error: unknown, runSignal: AbortSignal, timeoutMs: number): unknown {
  if (runSignal.aborted) return runSignal.reason;
  if (error instanceof Error && error.name === 'TimeoutError') {
    return new Error(`request timed out after ${timeoutMs} ms`);
  }
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return new Error(`request failed${cause}`);
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  return Object.keys(headers).some((key) => key.toLowerCase() === name);
}

/** A counting semaphore: at most `limit` holders, the rest queue in order. */
class Slots {
  private used = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  acquire(): Promise<void> {
    if (this.used < this.limit) {
      this.used += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.used -= 1;
  }
}
