// Turn events as AG-UI events (protocol 1.0): a run opens with RUN_STARTED; text streams as one
// TEXT_MESSAGE_* message per model step; every server tool call is TOOL_CALL_START, _ARGS, _END and
// its TOOL_CALL_RESULT; client tool calls come last (START, ARGS, END) and the run then finishes,
// waiting for their results in the next run. RUN_FINISHED or RUN_ERROR closes the run.
import { randomUUID } from 'node:crypto';
import type { ToolCallRequest } from '../model-providers/types.ts';
import type { TurnEvent } from '../turns/turn-events.ts';
import { toolResultMessageId } from './chunks.ts';

export type AguiEvent =
  | { type: 'RUN_STARTED'; threadId: string; runId: string }
  | {
      type: 'RUN_FINISHED';
      threadId: string;
      runId: string;
      outcome?: { type: 'success'; pendingToolCallIds?: string[] };
    }
  | { type: 'RUN_ERROR'; message: string; code?: string }
  | { type: 'TEXT_MESSAGE_START'; messageId: string; role: 'assistant' }
  | { type: 'TEXT_MESSAGE_CONTENT'; messageId: string; delta: string }
  | { type: 'TEXT_MESSAGE_END'; messageId: string }
  | { type: 'TOOL_CALL_START'; toolCallId: string; toolCallName: string; parentMessageId: string }
  | { type: 'TOOL_CALL_ARGS'; toolCallId: string; delta: string }
  | { type: 'TOOL_CALL_END'; toolCallId: string }
  | { type: 'TOOL_CALL_RESULT'; messageId: string; toolCallId: string; content: string; role: 'tool' };

const messageId = (): string => `msg_${randomUUID().replaceAll('-', '')}`;

export class AguiEventMapper {
  /** The assistant message of the current model step: its text, and the parent of its tool calls. */
  private stepId: string | undefined;
  private textOpen = false;
  /** A tool result was sent: what the model says next belongs to a new step. */
  private afterResult = false;

  constructor(
    private readonly threadId: string,
    private readonly runId: string,
  ) {}

  started(): AguiEvent[] {
    return [{ type: 'RUN_STARTED', threadId: this.threadId, runId: this.runId }];
  }

  /** The events of one turn event; `done` and `error` close the run. */
  map(event: TurnEvent): AguiEvent[] {
    switch (event.type) {
      case 'text-delta': {
        if (event.text === '') return [];
        const events: AguiEvent[] = [];
        if (!this.textOpen) {
          events.push({ type: 'TEXT_MESSAGE_START', messageId: this.step(), role: 'assistant' });
          this.textOpen = true;
        }
        events.push({ type: 'TEXT_MESSAGE_CONTENT', messageId: this.step(), delta: event.text });
        return events;
      }
      case 'tool-call-start':
        return this.call({ id: event.toolCallId, name: event.toolCallName, arguments: event.arguments });
      case 'tool-call-result':
        this.afterResult = true;
        return [
          {
            type: 'TOOL_CALL_RESULT',
            messageId: toolResultMessageId(event.toolCallId),
            toolCallId: event.toolCallId,
            content: event.content,
            role: 'tool',
          },
        ];
      case 'usage':
        return [];
      case 'done': {
        const calls = event.toolCalls ?? [];
        const events = [...this.closeText(), ...calls.flatMap((call) => this.call(call))];
        events.push({
          type: 'RUN_FINISHED',
          threadId: this.threadId,
          runId: this.runId,
          ...(calls.length > 0
            ? { outcome: { type: 'success', pendingToolCallIds: calls.map((call) => call.id) } }
            : {}),
        });
        return events;
      }
      case 'error':
        return this.failed(event.error.message);
    }
  }

  failed(message: string): AguiEvent[] {
    return [...this.closeText(), { type: 'RUN_ERROR', message }];
  }

  private step(): string {
    if (this.afterResult || this.stepId === undefined) {
      this.stepId = messageId();
      this.afterResult = false;
    }
    return this.stepId;
  }

  private closeText(): AguiEvent[] {
    if (!this.textOpen || this.stepId === undefined) return [];
    this.textOpen = false;
    return [{ type: 'TEXT_MESSAGE_END', messageId: this.stepId }];
  }

  private call(call: ToolCallRequest): AguiEvent[] {
    const events = this.closeText();
    events.push(
      { type: 'TOOL_CALL_START', toolCallId: call.id, toolCallName: call.name, parentMessageId: this.step() },
      { type: 'TOOL_CALL_ARGS', toolCallId: call.id, delta: call.arguments },
      { type: 'TOOL_CALL_END', toolCallId: call.id },
    );
    return events;
  }
}

/** A turn as AG-UI events, from RUN_STARTED to RUN_FINISHED; a failed turn throws (see `failed`). */
export async function* aguiEvents(
  events: AsyncIterable<TurnEvent>,
  mapper: AguiEventMapper,
): AsyncGenerator<AguiEvent> {
  yield* mapper.started();
  for await (const event of events) {
    if (event.type === 'error') throw event.error;
    yield* mapper.map(event);
    if (event.type === 'done') return;
  }
}
