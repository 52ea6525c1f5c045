// Who started an API turn, for the observer: the api account (whose WebSocket subscribers alone see
// the turn), the requester shown on the monitoring page, and the caller's W3C traceparent.
import type { FastifyRequest } from 'fastify';
import type { TurnOrigin } from '../turns/turn-observer.ts';

export function turnOrigin(request: FastifyRequest): TurnOrigin {
  const principal = request.principal;
  const traceparent = request.headers['traceparent'];
  return {
    ...(principal?.kind === 'account'
      ? { owner: principal.accountId, requester: `account:${principal.accountId}` }
      : principal?.kind === 'user'
        ? { requester: principal.username }
        : {}),
    ...(typeof traceparent === 'string' && traceparent.length <= 128 ? { traceparent } : {}),
  };
}
