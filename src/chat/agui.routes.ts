// POST /api/v1/agents/{agentId}/agui: AG-UI's native endpoint, for CopilotKit and any @ag-ui/client
// front end. It takes a RunAgentInput and answers with the AG-UI event stream (@ag-ui/encoder). The
// threadId is the session, scoped as the chat endpoint scopes a sessionId; only the new user message
// (or the tool results of the client tool calls the last run ended on) is taken from `messages`.
import { requireAgentAccess } from '../auth/agent-access.ts';
import { turnOrigin } from './turn-origin.ts';
import type { EventEncoder } from '@ag-ui/encoder';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AppError } from '../core/errors.ts';
import { pipeSse, publicMessage } from '../http/sse.ts';
import type { ChatMessage } from '../model-providers/types.ts';
import { principalMetadata } from '../usage/attribution.ts';
import type { TurnInput, TurnRunner } from '../turns/agent-turn.ts';
import { aguiEvents, AguiEventMapper, type AguiEvent } from './agui-events.ts';
import { aguiParams, runAgentInputSchema, type AguiMessage, type RunAgentInput } from './agui.schema.ts';
import { apiSession } from './chat-request.ts';

// The encoder (and the protobuf runtime under it) loads with the first AG-UI run, not at start.
let encoderClass: Promise<typeof EventEncoder> | undefined;
function loadEncoder(): Promise<typeof EventEncoder> {
  encoderClass ??= import('@ag-ui/encoder').then((module) => module.EventEncoder);
  return encoderClass;
}

function messageText(message: AguiMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/** The run's input: the last user message, or the trailing tool messages that answer client tool calls. */
function runInput(input: RunAgentInput): { input: string; resume?: ChatMessage[] } {
  const messages = input.messages.filter(
    (message) => message.role !== 'activity' && message.role !== 'reasoning',
  );
  const last = messages.at(-1);
  if (last?.role === 'user') return { input: messageText(last) };
  if (last?.role !== 'tool')
    throw new AppError('invalid', 'messages: the last message must have role "user" or "tool"');
  let start = messages.length - 1;
  while (start > 0 && messages[start - 1]?.role === 'tool') start -= 1;
  const resume = messages.slice(start).map((message): ChatMessage => {
    if (!message.toolCallId) throw new AppError('invalid', 'messages: a tool message needs toolCallId');
    return { role: 'tool', toolCallId: message.toolCallId, content: messageText(message) };
  });
  return { input: '', resume };
}

/** RunAgentInput.context as one system message. */
function contextMessage(input: RunAgentInput): ChatMessage[] {
  if (input.context.length === 0) return [];
  const lines = input.context.map((entry) => `- ${entry.description}: ${entry.value}`);
  return [{ role: 'system', content: ['Context from the application:', ...lines].join('\n') }];
}

export function registerAguiRoutes(app: FastifyInstance, turns: TurnRunner): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  api.post(
    '/agents/:agentId/agui',
    {
      config: { auth: 'chat' },
      schema: { tags: ['chat'], params: aguiParams, body: runAgentInputSchema },
    },
    async (request, reply) => {
      const { agentId } = request.params;
      const body = request.body;
      const { input, resume } = runInput(body);
      turns.checkAgent(agentId);
      requireAgentAccess(request.principal, agentId);
      const turn: Omit<TurnInput, 'signal'> = {
        agentId,
        input,
        ...(resume ? { resume } : {}),
        context: contextMessage(body),
        ...(body.tools.length > 0
          ? {
              clientTools: body.tools.map((tool) => ({
                name: tool.name,
                description: tool.description,
                parameters: tool.parameters ?? { type: 'object', properties: {} },
              })),
            }
          : {}),
        metadata: {
          channel: 'api',
          agentId,
          sessionId: body.threadId,
          ...principalMetadata(request.principal),
        },
        session: apiSession(agentId, body.threadId, request.principal),
        origin: turnOrigin(request),
      };
      const encoder = new (await loadEncoder())();
      // The encoder takes @ag-ui/core's event types; ours are the same shapes, declared here.
      const encode = (event: AguiEvent): string =>
        encoder.encode(event as unknown as Parameters<EventEncoder['encode']>[0]);
      const mapper = new AguiEventMapper(body.threadId, body.runId);
      await pipeSse(reply, (signal) => aguiEvents(turns.run({ ...turn, signal }), mapper), {
        frame: encode,
        error: (error) => mapper.failed(publicMessage(error)).map(encode).join(''),
      });
      return reply;
    },
  );
}
