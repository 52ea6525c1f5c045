// An A2A task is one agent turn: the message's text in, the answer streamed as an artifact and the
// tool calls as `working` status updates, ending completed, failed or canceled. The task's contextId
// is the session (the same sessions as a chat sessionId), so tasks of one context share history.
// Only types come from the SDK here: events are plain objects and states their protocol numbers.
import type {
  AgentExecutionEvent,
  AgentExecutor,
  ExecutionEventBus,
  RequestContext,
  User,
} from '@a2a-js/sdk/server';
import type { Message, Part, TaskStatus } from '@a2a-js/sdk';
import type { Principal } from '../auth/auth-service.ts';
import { randomUUID } from 'node:crypto';
import { isAppError } from '../core/errors.ts';
import { apiSession } from '../chat/chat-request.ts';
import type { TurnRunner } from '../turns/agent-turn.ts';

/** TaskState of the protocol (a2a.proto). */
export const TaskStates = { submitted: 1, working: 2, completed: 3, failed: 4, canceled: 5 } as const;
const ROLE_AGENT = 2;
export const ANSWER_ARTIFACT = 'answer';
/** A context id names a session; longer ones are refused. */
export const MAX_CONTEXT_ID = 200;
/** Tool results are shown in status updates (metadata.toolCall) up to this many characters. */
const MAX_TOOL_CONTENT = 4000;

/** The caller of a request, as the SDK sees it; tasks are kept per userName. */
export class PrincipalUser implements User {
  constructor(readonly principal: Principal | undefined) {}

  get isAuthenticated(): boolean {
    return this.principal !== undefined;
  }

  get userName(): string {
    const principal = this.principal;
    if (!principal) return 'anonymous';
    return principal.kind === 'user' ? `user:${principal.username}` : `account:${principal.accountId}`;
  }
}

export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  };
}

function agentMessage(taskId: string, contextId: string, text: string): Message {
  return {
    messageId: randomUUID(),
    contextId,
    taskId,
    role: ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The text of a message: its text parts, and data parts as JSON. */
export function messageText(message: Message): string {
  return message.parts
    .map((part) => {
      const content = part.content;
      if (content?.$case === 'text') return content.value;
      if (content?.$case === 'data') return JSON.stringify(content.value);
      return '';
    })
    .filter((text) => text !== '')
    .join('\n');
}

export class TurnExecutor implements AgentExecutor {
  /** Running tasks by id: CancelTask aborts the turn. */
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly agentId: string,
    private readonly turns: TurnRunner,
  ) {}

  async execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    const message = request.userMessage;
    const principal =
      request.context.user instanceof PrincipalUser ? request.context.user.principal : undefined;
    const status = (state: number, text?: string): TaskStatus => ({
      state,
      message: text === undefined ? undefined : agentMessage(taskId, contextId, text),
      timestamp: new Date().toISOString(),
    });
    const publish = (event: AgentExecutionEvent): void => bus.publish(event);
    const update = (state: number, text?: string, metadata?: Record<string, unknown>): void =>
      publish({ kind: 'statusUpdate', data: { taskId, contextId, status: status(state, text), metadata } });

    const task = request.task ?? {
      id: taskId,
      contextId,
      status: status(TaskStates.submitted),
      artifacts: [],
      history: [message],
      metadata: undefined,
    };
    publish({ kind: 'task', data: task });
    if (contextId.length > MAX_CONTEXT_ID) {
      update(TaskStates.failed, `contextId: at most ${MAX_CONTEXT_ID} characters`);
      bus.finished();
      return;
    }
    const controller = new AbortController();
    this.running.set(taskId, controller);
    update(TaskStates.working);
    let first = true;
    const chunk = (text: string, lastChunk: boolean): void => {
      publish({
        kind: 'artifactUpdate',
        data: {
          taskId,
          contextId,
          artifact: {
            artifactId: ANSWER_ARTIFACT,
            name: ANSWER_ARTIFACT,
            description: '',
            parts: [textPart(text)],
            metadata: undefined,
            extensions: [],
          },
          append: !first,
          lastChunk,
          metadata: undefined,
        },
      });
      first = false;
    };
    try {
      for await (const event of this.turns.run({
        agentId: this.agentId,
        input: messageText(message),
        metadata: { channel: 'a2a', agentId: this.agentId, sessionId: contextId },
        session: apiSession(this.agentId, contextId, principal),
        signal: controller.signal,
      })) {
        if (event.type === 'text-delta') chunk(event.text, false);
        else if (event.type === 'tool-call-start') {
          const toolCall = {
            phase: 'start',
            id: event.toolCallId,
            name: event.toolCallName,
            arguments: event.arguments,
          };
          update(TaskStates.working, `calling tool ${event.toolCallName}`, { toolCall });
        } else if (event.type === 'tool-call-result') {
          const content = event.content.slice(0, MAX_TOOL_CONTENT);
          const toolCall = { phase: 'result', id: event.toolCallId, name: event.toolCallName, content };
          update(TaskStates.working, `tool ${event.toolCallName} finished`, { toolCall });
        } else if (event.type === 'error') throw event.error;
        else if (event.type === 'done') {
          // The last chunk replaces the streamed pieces by the whole answer: one part in the task.
          first = true;
          chunk(event.text, true);
          update(TaskStates.completed, event.text);
          break;
        }
      }
    } catch (error) {
      if (controller.signal.aborted) update(TaskStates.canceled, 'the task was canceled');
      else update(TaskStates.failed, isAppError(error) ? error.message : 'internal error');
    } finally {
      this.running.delete(taskId);
      bus.finished();
    }
  }

  async cancelTask(taskId: string): Promise<void> {
    this.running.get(taskId)?.abort();
  }
}
