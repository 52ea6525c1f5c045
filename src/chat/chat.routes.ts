// POST /api/v1/chat/completions: any OpenAI client calls an agent by id (the `model` field).
// Errors found before the stream starts are HTTP errors; after it starts, one error frame ends it.
import { watchClient } from '../http/disconnect.ts';
import { requireAgentAccess } from '../auth/agent-access.ts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { dataFrame, pipeSse, publicMessage } from '../http/sse.ts';
import { principalMetadata } from '../usage/attribution.ts';
import type { TurnInput, TurnRunner } from '../turns/agent-turn.ts';
import { chatRequestSchema } from './chat.schema.ts';
import { turnOrigin } from './turn-origin.ts';
import { apiSession, chatBranch, chatClientTools, chatParams, splitMessages } from './chat-request.ts';
import { chatChunks, completionIds, toolCallsField, usageBody } from './chunks.ts';

export function registerChatRoutes(app: FastifyInstance, turns: TurnRunner): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/chat/completions',
    { config: { auth: 'chat' }, schema: { tags: ['chat'], body: chatRequestSchema } },
    async (request, reply) => {
      const body = request.body;
      const agentId = body.model;
      const { input, images, history, resume } = splitMessages(body.messages);
      turns.checkAgent(agentId);
      requireAgentAccess(request.principal, agentId);
      const ids = completionIds(agentId);
      const clientTools = chatClientTools(body);
      const branch = chatBranch(body, resume !== undefined);
      const session = body.sessionId ? apiSession(agentId, body.sessionId, request.principal) : undefined;
      if (session && branch) await turns.checkBranch({ ...session, branch });
      const turn: Omit<TurnInput, 'signal'> = {
        agentId,
        input,
        ...(images.length > 0 ? { images } : {}),
        history,
        params: chatParams(body),
        ...(clientTools.length > 0 ? { clientTools } : {}),
        ...(resume ? { resume } : {}),
        metadata: {
          channel: 'api',
          agentId,
          ...(body.sessionId ? { sessionId: body.sessionId } : {}),
          ...principalMetadata(request.principal),
        },
        ...(session ? { session: { ...session, ...(branch ? { branch } : {}) } } : {}),
        origin: turnOrigin(request),
      };

      if (!body.stream) {
        const client = watchClient(reply);
        const output = await turns.complete({ ...turn, signal: client.signal }).finally(client.dispose);
        const calls = output.toolCalls;
        const message = calls
          ? {
              role: 'assistant',
              content: output.text === '' ? null : output.text,
              tool_calls: toolCallsField(calls),
            }
          : { role: 'assistant', content: output.text };
        return {
          id: ids.id,
          object: 'chat.completion',
          created: ids.created,
          model: ids.model,
          choices: [{ index: 0, message, finish_reason: calls ? 'tool_calls' : 'stop' }],
          usage: usageBody(output.usage),
        };
      }

      const agui = String(request.headers['x-stream-protocol'] ?? '').toLowerCase() === 'agui';
      const options = { agui, includeUsage: body.stream_options?.include_usage === true };
      await pipeSse(reply, (signal) => chatChunks(turns.run({ ...turn, signal }), ids, options), {
        frame: dataFrame,
        error: (error) => dataFrame({ error: publicMessage(error) }),
      });
      return reply;
    },
  );
}
