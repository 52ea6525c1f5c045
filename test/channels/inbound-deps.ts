// The deps of handleInbound for tests that drive it with a recording adapter and a scripted turn: a
// Telegram DM account that allows everyone, the default config.
import type { InboundDeps } from '../../src/channels/inbound.ts';
import type { ChannelAdapter } from '../../src/channels/types.ts';
import { accountSchema, configSchema } from '../../src/config/schema.ts';
import type { TurnRunner } from '../../src/turns/agent-turn.ts';

/** A turn runner answering `text` in one done event; `ran` counts the turns run. */
export function answering(text: string): { turns: TurnRunner; ran: () => number } {
  let ran = 0;
  const turns = {
    async *run() {
      ran++;
      yield { type: 'done', text };
    },
  } as unknown as TurnRunner;
  return { turns, ran: () => ran };
}

export function inboundDeps(
  adapter: ChannelAdapter,
  turns: TurnRunner,
  overrides: Partial<InboundDeps>,
): InboundDeps {
  const config = configSchema.parse({});
  return {
    config: () => config,
    turns,
    adapter,
    account: {
      platform: 'telegram',
      id: 'bot1',
      config: accountSchema.parse({ dm_policy: 'allow' }) as never,
    },
    signal: new AbortController().signal,
    ...overrides,
  };
}
