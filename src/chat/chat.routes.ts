// POST /api/v1/chat/completions: any OpenAI client calls an agent by id (the `model` field).
// Errors found before the stream starts are HTTP errors; after it starts, one error frame ends it.
import { watchClient } from '../http/disconnect.ts';
import { requireAgentAccess } from '../auth/agent-access.ts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { errorMessage, isAppError } from '../core/errors.ts';
import { SseWriter } from '../http/sse.ts';
import { principalMetadata } from '../usage/attribution.ts';
import type { TurnInput, TurnRunner } from '../turns/agent-turn.ts';
import { chatRequestSchema } from './chat.schema.ts';
import { turnOrigin } from './turn-origin.ts';
import { apiSession, chatBranch, chatClientTools, chatParams, splitMessages } from './chat-request.ts';
import {
  chunk,
  completionIds,
  eventChunk,
  toolCallChunks,
  toolCallsField,
  usageBody,
  usageChunk,
} from './chunks.ts';

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
      const sse = new SseWriter(reply);
      sse.send(chunk(ids, { role: 'assistant', content: '' }));
      try {
        for await (const event of turns.run({ ...turn, signal: sse.signal })) {
          if (event.type === 'error') throw event.error;
          if (event.type === 'done') {
            for (const frame of toolCallChunks(ids, event.toolCalls ?? [])) sse.send(frame);
            sse.send(chunk(ids, {}, event.toolCalls ? 'tool_calls' : 'stop'));
            if (body.stream_options?.include_usage) sse.send(usageChunk(ids, event.usage));
            sse.send('[DONE]');
            break;
          }
          const frame = eventChunk(ids, event, agui);
          if (frame) sse.send(frame);
        }
      } catch (error) {
        if (!sse.isClosed) {
          if (!isAppError(error)) request.log.error({ err: error }, 'chat stream failed');
          sse.send({ error: isAppError(error) ? error.message : 'internal error' });
        }
        request.log.debug({ reason: errorMessage(error) }, 'chat stream ended early');
      } finally {
        sse.end();
      }
      return reply;
    },
  );
}
