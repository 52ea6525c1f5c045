// The WebSocket event API's shapes: what a client may send, and (for the OpenAPI document) the
// events it receives.
import { z } from 'zod';
import { LIVE_EVENT_TYPES } from '../../observability/live-event.ts';

/** The subprotocol a browser may offer (with `bearer.<token>`) to carry its credential. */
export const EVENT_SOCKET_PROTOCOL = 'agent-service';

export const clientMessageSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('ping') }),
  z.strictObject({
    type: z.literal('subscribe'),
    agentId: z.union([z.literal('*'), z.string().regex(/^[A-Za-z0-9_-]{1,64}$/u)]),
  }),
]);

export const liveEventSchema = z
  .object({
    id: z.string(),
    type: z.enum(LIVE_EVENT_TYPES),
    agentId: z.string(),
    taskId: z.string().meta({ description: 'The turn (agent topics) or chain run (chain topics).' }),
    timestamp: z.int().meta({ description: 'Milliseconds since the epoch.' }),
    payload: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'LiveEvent' });

export const upgradeRequiredSchema = z.object({ error: z.string() });

export const agentSocketQuerySchema = z.object({
  agentId: z
    .string()
    .optional()
    .meta({ description: 'The agent to watch (default main; `*`: every agent, users only).' }),
  token: z
    .string()
    .optional()
    .meta({ description: 'A login token or API key (browsers; or Sec-WebSocket-Protocol: bearer.<token>).' }),
});

export const chainSocketQuerySchema = z.object({
  chainId: z.string().meta({ description: 'The rule chain whose runs to watch.' }),
  token: z.string().optional(),
});
