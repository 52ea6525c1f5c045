// A2A over fastify: agent cards (per agent, and the server's at /.well-known/agent-card.json) and
// each agent's JSON-RPC endpoint, POST /api/v1/a2a/{agentId}. Mounted thinly over A2AServer, the way
// webhooks are: the route checks the agent and the caller, the SDK's handlers do the protocol.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { requireAgentAccess } from '../auth/agent-access.ts';
import type { AuthService } from '../auth/auth-service.ts';
import { dataFrame, pipeSse } from '../http/sse.ts';
import type { TurnRunner } from '../turns/agent-turn.ts';
import { A2A_PATH } from './a2a-card.ts';
import type { A2AAnswer, A2AServer, CardAddress } from './a2a-server.ts';

const params = z.object({ agentId: z.string().min(1).max(64) });
const cardSchema = z.record(z.string(), z.unknown());

function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

function bearer(request: FastifyRequest): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];
}

/** A streamed answer's events: the first (read before the stream started), then the rest. */
async function* streamOf(answer: Extract<A2AAnswer, { kind: 'stream' }>): AsyncGenerator<unknown> {
  if (answer.first !== undefined) yield answer.first;
  for (;;) {
    const next = await answer.events.next();
    if (next.done) return;
    yield next.value;
  }
}

/** Registered at the root: the paths are /.well-known/... and /api/v1/a2a/... */
export function registerA2ARoutes(
  root: FastifyInstance,
  deps: { a2a: A2AServer; turns: TurnRunner; auth: AuthService; version: string },
): void {
  const app = root.withTypeProvider<ZodTypeProvider>();
  const { a2a, turns, auth } = deps;
  const at = (request: FastifyRequest): CardAddress => ({ origin: originOf(request), version: deps.version });

  // Cards are discovery documents, public as A2A expects; the server's lists only what the caller may use.
  app.get(
    '/.well-known/agent-card.json',
    { config: { auth: 'public' }, schema: { tags: ['a2a'], response: { 200: cardSchema } } },
    async (request) => {
      const credential = bearer(request);
      const principal = credential ? await auth.resolveBearer(credential) : undefined;
      return a2a.serverCard(principal, at(request));
    },
  );
  app.get(
    `${A2A_PATH}/:agentId/.well-known/agent-card.json`,
    { config: { auth: 'public' }, schema: { tags: ['a2a'], params, response: { 200: cardSchema } } },
    async (request) => a2a.card(request.params.agentId, at(request)),
  );

  app.post(
    `${A2A_PATH}/:agentId`,
    {
      config: { auth: 'chat' },
      schema: {
        tags: ['a2a'],
        description:
          'A2A JSON-RPC: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask (v1.0) and message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe (v0.3). A task is one turn; its contextId is the session.',
        params,
        body: z.unknown(),
      },
    },
    async (request, reply) => {
      const { agentId } = request.params;
      turns.checkAgent(agentId);
      requireAgentAccess(request.principal, agentId);
      const answer = await a2a.handle(agentId, request.body, request.headers, request.principal);
      if (answer.kind === 'json') return reply.code(answer.status).send(answer.body);
      // A stream the client leaves goes on: the task runs to its end and can be re-subscribed.
      await pipeSse(reply, () => streamOf(answer), {
        frame: dataFrame,
        error: (error) => `event: error\ndata: ${JSON.stringify(answer.errorBody(error))}\n\n`,
      });
      return reply;
    },
  );
}
