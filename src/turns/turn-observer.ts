// What the turn runner tells an observer (live events, metrics, traces, the monitoring page): each
// turn's start, its events and its end. The observed turn goes with the turn's model caller
// (model-providers/caller.ts), so the model calls and chain runs of the turn find the turn they
// belong to.
import type { TurnStart } from '../observability/turn-watch.ts';
import type { TurnEvent } from './turn-events.ts';

/** Who started a turn, beyond its channel: set by the edge that received the request. */
export interface TurnOrigin {
  /** The api-channel account whose key started the turn (its subscribers see only its turns). */
  owner?: string;
  /** Who asked, for the monitoring page: a user name, an account, a sender. */
  requester?: string;
  /** The caller's W3C traceparent, continued by the turn's trace. */
  traceparent?: string;
}

export interface ObservedTurn {
  event(
    event: Extract<TurnEvent, { type: 'text-delta' | 'tool-call-start' | 'tool-call-result' | 'usage' }>,
  ): void;
}

export interface TurnObserver {
  turnStarted(start: TurnStart): ObservedTurn;
  turnEnded(turn: ObservedTurn, text: string | undefined, error?: unknown): void;
}
