// The one streaming shape of an agent turn. Chat completions (streamed or folded), channel replies
// and cron runs all consume it; only the edges turn it into bytes.
import type { RunEvent } from '../engine/types.ts';
import type { ToolCallRequest, Usage } from '../model-providers/types.ts';

export type TurnEvent =
  /** Text, tool calls and usage exactly as the run reports them. */
  | Extract<RunEvent, { type: 'text-delta' | 'tool-call-start' | 'tool-call-result' | 'usage' }>
  /** The turn failed; `error` is an AppError (its kind gives the status) or, for our own faults, any Error. */
  | { type: 'error'; error: Error }
  /**
   * The turn finished: the whole answer and the usage summed over every model call. `toolCalls`: the
   * model called client tools, and the turn waits for their results in the client's next request.
   */
  | ({ type: 'done' } & TurnOutput);

export interface TurnOutput {
  text: string;
  usage: Usage | undefined;
  toolCalls?: ToolCallRequest[];
}

/** Folds a turn's events into its answer; an error event is thrown. For callers that do not stream. */
export async function collectTurn(events: AsyncIterable<TurnEvent>): Promise<TurnOutput> {
  for await (const event of events) {
    if (event.type === 'error') throw event.error;
    if (event.type === 'done') {
      const { type: _type, ...output } = event;
      return output;
    }
  }
  throw new Error('the turn ended without an answer');
}
