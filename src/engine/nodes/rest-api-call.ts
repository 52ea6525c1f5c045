import { z } from 'zod';
import { AppError } from '../../core/errors.ts';
import { compileExprTemplate, renderAsString } from '../expr-template.ts';
import type { NodeOutput, RuleMessage } from '../types.ts';
import { flag, nonEmptyText, optionalText, wholeNumber } from './config-fields.ts';
import { GuardedClient } from './guarded-request.ts';
import { nodeEnvOf } from './node-env.ts';
import type { GuardedAnswer } from './guarded-request.ts';
import { defineNode } from './define-node.ts';

const configSchema = z.object({
  restEndpointUrlPattern: nonEmptyText(
    'URL',
    'Endpoint URL; ${metadata.key}, ${msg.key}, ${vars.key} and ${global.key} are replaced. Private, loopback and link-local addresses are refused unless the server allows them.',
  ),
  // RuleGo upper-cases the method: `get` and `GET` are the same.
  requestMethod: z
    .preprocess(
      (method) => (typeof method === 'string' ? method.toUpperCase() : method),
      z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD']).default('POST'),
    )
    .meta({ label: 'Method', description: 'HTTP method, in any case.' }),
  headers: z
    .record(z.string(), z.string())
    .default({})
    .meta({ label: 'Headers', description: 'Request headers; values are templated like the URL.' }),
  readTimeoutMs: wholeNumber(0, 2000, 'Timeout (ms)', 'Time limit of the whole request; 0 for none.'),
  maxParallelRequestsCount: wholeNumber(
    1,
    200,
    'Max parallel',
    'Requests this node sends at once; more wait their turn.',
  ),
  body: optionalText(
    'Body',
    'Request body template such as {"name": "${msg.name}"}; empty sends the message data.',
  ),
  withoutRequestBody: flag('No body', 'Send no request body even for POST/PUT/PATCH.'),
});

export const restApiCallNode = defineNode(configSchema, {
  type: 'restApiCall',
  label: 'REST call',
  description:
    'Calls an HTTP endpoint; a 200 answer becomes the message data, any other status takes Failure with the answer in metadata.errorBody.',
  category: 'external',
  relations: ['Success', 'Failure'],
  create(config, factory) {
    const where = `node "${factory.nodeId}"`;
    const url = compileExprTemplate(config.restEndpointUrlPattern, where);
    const headers = Object.entries(config.headers).map(
      ([name, value]) => [compileExprTemplate(name, where), compileExprTemplate(value, where)] as const,
    );
    const body = config.body === '' ? undefined : compileExprTemplate(config.body, where);
    const templated =
      !url.isStatic ||
      body?.isStatic === false ||
      headers.some(([name, value]) => !name.isStatic || !value.isStatic);
    const envOf = nodeEnvOf(factory, true);
    const slots = new Slots(config.maxParallelRequestsCount);
    const client = new GuardedClient(factory.services.network);
    return {
      async process(message, context) {
        // RuleGo's env for these templates also has each metadata key at the top level, and the
        // outputs of the nodes they name; a template that fails to evaluate renders as "".
        const env = templated ? envOf(message, context) : {};
        const requestHeaders: Record<string, string> = {};
        for (const [name, value] of headers) {
          const key = renderAsString(name, env);
          if (key !== '') requestHeaders[key] = renderAsString(value, env);
        }
        const withBody = !config.withoutRequestBody && !['GET', 'HEAD'].includes(config.requestMethod);
        if (withBody && !hasHeader(requestHeaders, 'content-type')) {
          requestHeaders['content-type'] = message.dataType === 'JSON' ? 'application/json' : 'text/plain';
        }
        const timeout = config.readTimeoutMs > 0 ? AbortSignal.timeout(config.readTimeoutMs) : undefined;
        const signal = timeout ? AbortSignal.any([context.signal, timeout]) : context.signal;
        await slots.acquire();
        try {
          const response = await client.send(renderAsString(url, env), {
            method: config.requestMethod,
            headers: requestHeaders,
            body: withBody ? (body ? renderAsString(body, env) : message.data) : undefined,
            signal,
            maxBytes: MAX_RESPONSE_BYTES,
          });
          return [answer(message, response)];
        } catch (error) {
          const failure = describeError(error, context.signal, timeout, config.readTimeoutMs);
          if (context.signal.aborted || failure instanceof AppError || !(failure instanceof Error))
            throw failure;
          // As RuleGo: a transport error also goes in metadata.errorBody.
          const metadata = { ...message.metadata, errorBody: failure.message, errorMsg: failure.message };
          return [{ relation: 'Failure', message: { ...message, metadata }, error: failure.message }];
        } finally {
          slots.release();
        }
      },
      destroy: () => client.close(),
    };
  },
});

/** The largest answer a restApiCall node reads; a bigger one ends the node in Failure. */
const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** RuleGo's rule: only 200 is Success (the answer becomes the data, the data type stays); any other
 * status keeps the request as the data and puts the answer in `metadata.errorBody`. */
function answer(message: RuleMessage, response: GuardedAnswer): NodeOutput {
  const { body } = response;
  const metadata: Record<string, string> = {
    ...message.metadata,
    status: `${response.status} ${response.statusText}`.trim(),
    statusCode: String(response.status),
  };
  if (response.status !== 200) {
    metadata['errorBody'] = body;
    metadata['errorMsg'] = body;
    return { relation: 'Failure', message: { ...message, metadata }, error: body };
  }
  return { relation: 'Success', message: { ...message, metadata, data: body } };
}

/** The run's own abort reason, the time limit, a refusal or size error as is; else the transport's. */
function describeError(
  error: unknown,
  runSignal: AbortSignal,
  timeout: AbortSignal | undefined,
  timeoutMs: number,
): unknown {
  if (runSignal.aborted) return runSignal.reason;
  if (timeout?.aborted) return new Error(`request timed out after ${timeoutMs} ms`);
  if (error instanceof AppError) return error;
  return new Error(`request failed: ${error instanceof Error ? error.message : String(error)}`);
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
