// A turn reads one stream: every event of its agent's run passes through here, in order. Text, tool
// calls and usage go on to the turn's consumer; the rest is kept for the turn's end: the answer's
// text, the usage summed over every model call, the node's record of the conversation (what the
// session keeps) and the client tool calls the turn ends on. A failed run is told by its result
// (RunResult.failure), not by an event: `failureOf` makes it the turn's error.
import { AppError, isAppError } from '../core/errors.ts';
import type { RunEvent, RunResult } from '../engine/types.ts';
import type { ChatMessage, ToolCallRequest, Usage } from '../model-providers/types.ts';
import type { TurnEvent } from './turn-events.ts';

function addUsage(total: Usage | undefined, next: Usage): Usage {
  if (!total) return { ...next };
  const model = next.model ?? total.model;
  const cached = (total.cachedTokens ?? 0) + (next.cachedTokens ?? 0);
  const reasoning = (total.reasoningTokens ?? 0) + (next.reasoningTokens ?? 0);
  return {
    promptTokens: total.promptTokens + next.promptTokens,
    completionTokens: total.completionTokens + next.completionTokens,
    totalTokens: total.totalTokens + next.totalTokens,
    ...(cached ? { cachedTokens: cached } : {}),
    ...(reasoning ? { reasoningTokens: reasoning } : {}),
    ...(model ? { model } : {}),
  };
}

export class TurnFold {
  text = '';
  usage: Usage | undefined;
  /** The model node's messages of this turn (its inputs first), when a model node ran. */
  recorded: ChatMessage[] | undefined;
  /** The client tool calls the model made: the turn ends on them. */
  toolCalls: ToolCallRequest[] | undefined;

  constructor(private readonly emit: (event: TurnEvent) => void) {}

  /** Takes one event of the run (the run's onEvent). */
  readonly add = (event: RunEvent): void => {
    switch (event.type) {
      case 'text-delta':
        this.text += event.text;
        this.emit(event);
        break;
      case 'usage':
        this.usage = addUsage(this.usage, event.usage);
        this.emit(event);
        break;
      case 'tool-call-start':
      case 'tool-call-result':
        this.emit(event);
        break;
      case 'conversation':
        this.recorded = event.messages;
        break;
      case 'client-tool-calls':
        this.toolCalls = event.calls;
        break;
      case 'node-start':
      case 'node-end':
      case 'run-end':
        break;
    }
  };

  /** A chain without a model node: its result is the answer, reported as text too. */
  answerWith(result: RunResult): void {
    if (this.text !== '' || this.toolCalls || result.results.length === 0) return;
    this.text = result.results.map((message) => message.data).join('\n');
    this.emit({ type: 'text-delta', text: this.text });
  }

  /** What the session keeps of the answer: the node's record without its inputs (stored already). */
  answerMessages(): ChatMessage[] {
    if (!this.recorded) return [{ role: 'assistant', content: this.text }];
    const first = this.recorded.findIndex((message) => message.role === 'assistant');
    return first < 0 ? [] : this.recorded.slice(first);
  }
}

/**
 * A failed run as the turn's error: what the failing node threw when it is an AppError (its kind
 * gives the answer's status: 502, 504), else an upstream error naming the agent.
 */
export function failureOf(agentId: string, result: RunResult): Error {
  const cause = result.failure?.cause;
  if (isAppError(cause)) return cause;
  return new AppError('upstream', `agent "${agentId}" failed: ${result.error ?? 'unknown error'}`);
}
