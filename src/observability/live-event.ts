// A live event's shape, as WebSocket subscribers receive it. Node-free: the events schema, which the
// web UI's typecheck reads, takes the event types from here.
/** The event types of TpClaw's WebSocket API. */
export const LIVE_EVENT_TYPES = [
  'text',
  'think',
  'tool',
  'tool_result',
  'done',
  'error',
  'status',
  'progress',
] as const;
export type LiveEventType = (typeof LIVE_EVENT_TYPES)[number];

/** An event as subscribers receive it. */
export interface LiveEvent {
  id: string;
  type: LiveEventType;
  agentId: string;
  /** The turn (or, for chain subscriptions, the chain run) the event belongs to. */
  taskId: string;
  /** Milliseconds since the epoch. */
  timestamp: number;
  payload: Record<string, unknown>;
}
