// POST /api/v1/chat/completions: any OpenAI client calls an agent by id (the `model` field).
// Errors found before the stream starts are HTTP errors; after it starts, one error frame ends it.
import { watchClient } from '../http/disconnect.ts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError, errorMessage, isAppError } from '../core/errors.ts';
import { SseWriter } from '../http/sse.ts';
import type { ChatMessage, ModelParams } from '../model-providers/types.ts';
import { DEFAULT_SCOPE, sessionKey } from '../turns/session-key.ts';
import type { TurnInput, TurnRunner } from '../turns/agent-turn.ts';
import type { Principal } from '../auth/auth-service.ts';
import { chatRequestSchema, messageImages, messageText, type ChatRequest } from './chat.schema.ts';
import { chunk, completionIds, eventChunk, usageBody, usageChunk } from './chunks.ts';

function params(body: ChatRequest): ModelParams {
  const result: ModelParams = {};
  if (body.temperature != null) result.temperature = body.temperature;
  if (body.top_p != null) result.topP = body.top_p;
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens != null) result.maxTokens = maxTokens;
  if (body.stop != null) result.stop = typeof body.stop === 'string' ? [body.stop] : body.stop;
  return result;
}

/** The last message is the turn's input; earlier ones are the history of a stateless request. */
function splitMessages(body: ChatRequest): { input: string; images: string[]; history: ChatMessage[] } {
  const last = body.messages.at(-1);
  if (!last || last.role !== 'user')
    throw new AppError('invalid', 'messages: the last message must have role "user"');
  const history: ChatMessage[] = [];
  for (const message of body.messages.slice(0, -1)) {
    const text = messageText(message);
    if (message.role === 'system' || message.role === 'developer')
      history.push({ role: 'system', content: text });
    else if (message.role === 'user') {
      const images = messageImages(message);
      history.push({ role: 'user', content: text, ...(images.length > 0 ? { images } : {}) });
    } else if (message.role === 'assistant' && text !== '')
      history.push({ role: 'assistant', content: text });
  }
  return { input: messageText(last), images: messageImages(last), history };
}

/**
 * The session a sessionId names. An api-channel account's sessions are its own (scope
 * per_account_channel_peer): another app reusing the same sessionId reaches a different one.
 * Users (and requests while auth is off) share the per_peer session of that id.
 */
function apiSession(
  agentId: string,
  sessionId: string,
  principal: Principal | undefined,
): NonNullable<TurnInput['session']> {
  if (principal?.kind === 'account') {
    const scope = 'per_account_channel_peer';
    return {
      key: sessionKey({ agentId, channel: 'api', scope, scopeId: `${principal.accountId}:${sessionId}` }),
      info: { agentId, channel: 'api', scope },
    };
  }
  return {
    key: sessionKey({ agentId, channel: 'api', scope: DEFAULT_SCOPE, scopeId: sessionId }),
    info: { agentId, channel: 'api', scope: DEFAULT_SCOPE },
  };
}

export function registerChatRoutes(app: FastifyInstance, turns: TurnRunner): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/chat/completions',
    { config: { auth: 'chat' }, schema: { tags: ['chat'], body: chatRequestSchema } },
    async (request, reply) => {
      const body = request.body;
      const agentId = body.model;
      const { input, images, history } = splitMessages(body);
      turns.checkAgent(agentId);
      const ids = completionIds(agentId);
      const turn: Omit<TurnInput, 'signal'> = {
        agentId,
        input,
        ...(images.length > 0 ? { images } : {}),
        history,
        params: params(body),
        metadata: { channel: 'api', agentId, ...(body.sessionId ? { sessionId: body.sessionId } : {}) },
        ...(body.sessionId ? { session: apiSession(agentId, body.sessionId, request.principal) } : {}),
      };

      if (!body.stream) {
        const client = watchClient(reply);
        const output = await turns.complete({ ...turn, signal: client.signal }).finally(client.dispose);
        return {
          id: ids.id,
          object: 'chat.completion',
          created: ids.created,
          model: ids.model,
          choices: [
            { index: 0, message: { role: 'assistant', content: output.text }, finish_reason: 'stop' },
          ],
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
            sse.send(chunk(ids, {}, 'stop'));
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
