// Handles one inbound message: policy check, binding, one agent turn in the session of the peer,
// reply in the same chat. Nothing here throws: every outcome is returned (and logged without the
// message's content).
import type { Config } from '../config/schema.ts';
import { errorMessage, isAppError } from '../core/errors.ts';
import type { TurnRunner } from '../turns/agent-turn.ts';
import { sessionKey } from '../turns/session-key.ts';
import { checkPolicy, peerOf, resolveAgent } from './routing.ts';
import type { ChannelAccount, ChannelAdapter, ChannelLogger, InboundMessage } from './types.ts';
import { collectTurn } from '../turns/turn-events.ts';

/** Sent instead of an answer when the turn fails; it never carries the failure's details. */
export const APOLOGY = 'Sorry, I could not answer that just now. Please try again later.';

/** Session scope of channel conversations: one session per account and peer (group or DM sender). */
export const CHANNEL_SESSION_SCOPE = 'per_account_channel_peer';

export type InboundOutcome = 'ignored' | 'refused' | 'replied' | 'apologized' | 'failed';

export interface InboundDeps {
  config: () => Config;
  turns: TurnRunner;
  adapter: ChannelAdapter;
  account: ChannelAccount;
  logger?: ChannelLogger | undefined;
  signal: AbortSignal;
  /** Time limit of one agent turn (default 10 minutes). */
  turnTimeoutMs?: number;
}

export function channelSession(message: InboundMessage, agentId: string) {
  const info = { agentId, channel: message.platform, scope: CHANNEL_SESSION_SCOPE };
  return { key: sessionKey({ ...info, scopeId: `${message.accountId}:${peerOf(message)}` }), info };
}

export async function handleInbound(message: InboundMessage, deps: InboundDeps): Promise<InboundOutcome> {
  const where = {
    platform: message.platform,
    accountId: message.accountId,
    chatType: message.chatType,
    chatId: message.chatId,
    senderId: message.senderId,
  };
  if (message.text.trim() === '') return 'ignored';
  const config = deps.config();
  const account = config.channels[message.platform]?.accounts[message.accountId] ?? deps.account.config;
  const decision = checkPolicy(account, message);
  if (!decision.allowed) {
    deps.logger?.info({ ...where, reason: decision.reason }, 'channel message refused by policy');
    return 'refused';
  }
  const route = resolveAgent(config.bindings, message);
  const signal = AbortSignal.any([deps.signal, AbortSignal.timeout(deps.turnTimeoutMs ?? 10 * 60_000)]);
  let reply: string;
  let outcome: InboundOutcome;
  try {
    const output = await collectTurn(
      deps.turns.run({
        agentId: route.agentId,
        input: message.text,
        session: channelSession(message, route.agentId),
        metadata: {
          channel: message.platform,
          accountId: message.accountId,
          chatId: message.chatId,
          chatType: message.chatType,
          senderId: message.senderId,
          ...(message.messageId ? { messageId: message.messageId } : {}),
        },
        signal,
      }),
    );
    reply = output.text;
    outcome = 'replied';
  } catch (error) {
    if (deps.signal.aborted) return 'failed';
    deps.logger?.warn(
      {
        ...where,
        agentId: route.agentId,
        kind: isAppError(error) ? error.kind : 'internal',
        err: errorMessage(error),
      },
      'channel agent turn failed',
    );
    reply = APOLOGY;
    outcome = 'apologized';
  }
  if (reply.trim() === '') {
    deps.logger?.info({ ...where, agentId: route.agentId }, 'the agent gave an empty answer; nothing sent');
    return outcome;
  }
  try {
    await deps.adapter.sendText(deps.account, message.chatId, reply, {
      replyTo: message.chatType === 'group' ? message.messageId : undefined,
      signal: deps.signal,
    });
    return outcome;
  } catch (error) {
    if (!deps.signal.aborted) {
      deps.logger?.warn({ ...where, err: errorMessage(error) }, 'could not send the channel reply');
    }
    return 'failed';
  }
}
