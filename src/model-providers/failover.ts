import { AppError, errorMessage } from '../core/errors.ts';
import type { ModelEvent, ModelProvider, ModelRequest } from './types.ts';

/**
 * Tries each provider in turn until one answers. A provider that fails before streaming anything
 * hands over to the next; once output has been streamed, a failure is final (it cannot be undone).
 */
export function createFailoverProvider(providers: ModelProvider[]): ModelProvider {
  const [first] = providers;
  if (!first) throw new AppError('invalid', 'a failover provider needs at least one provider');
  if (providers.length === 1) return first;
  return {
    id: first.id,
    demo: first.demo,
    stream: (request) => streamWithFailover(providers, request),
  };
}

async function* streamWithFailover(
  providers: ModelProvider[],
  request: ModelRequest,
): AsyncGenerator<ModelEvent> {
  const failures: unknown[] = [];
  for (const provider of providers) {
    let yielded = false;
    try {
      for await (const event of provider.stream(request)) {
        // A retry notice is not output: the call may still fail over.
        if (event.type !== 'retry') yielded = true;
        yield event;
      }
      return;
    } catch (error) {
      // A budget or rate limit of our own (rate-limited) holds for every provider: no failover.
      if (yielded || request.signal.aborted || (error instanceof AppError && error.kind === 'rate-limited'))
        throw error;
      failures.push(error);
    }
  }
  const last = failures.at(-1);
  const kind = last instanceof AppError ? last.kind : 'upstream';
  throw new AppError(kind, failures.map(errorMessage).join('; '), { cause: last });
}
