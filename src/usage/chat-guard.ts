// Checks before a chat turn starts (POST /chat/completions, the AG-UI endpoint: routes whose auth
// policy is `chat`): the api account's requests per minute and the budgets that apply. A refusal is
// a 429 with {"error": "..."} (and Retry-After for a rate limit), before any stream has started; a
// check that cannot answer in time (its store is away) is a 503 with Retry-After, never a free pass.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { attributionOf, principalMetadata } from './attribution.ts';
import { isBudgetExceeded } from './budgets.ts';
import { AdmissionUnavailableError, RateLimitError, admitWithin, type UsageGuard } from './guard.ts';

function agentOf(request: FastifyRequest): string {
  const body = request.body as { model?: unknown } | undefined;
  if (typeof body?.model === 'string') return body.model;
  const params = request.params as { agentId?: unknown } | undefined;
  return typeof params?.agentId === 'string' ? params.agentId : '';
}

export function installChatGuard(app: FastifyInstance, guard: UsageGuard): void {
  app.addHook('preHandler', async (request, reply) => {
    if (request.routeOptions.config.auth !== 'chat') return;
    const who = attributionOf(agentOf(request), { channel: 'api', ...principalMetadata(request.principal) });
    try {
      await admitWithin(guard.admitApi(who));
    } catch (error) {
      if (error instanceof RateLimitError || error instanceof AdmissionUnavailableError)
        void reply.header('retry-after', String(error.retryAfter));
      else if (isBudgetExceeded(error))
        void reply.header(
          'retry-after',
          String(Math.max(1, Math.ceil((error.period.end - Date.now()) / 1000))),
        );
      throw error;
    }
  });
}
