// Who may talk to an agent through a channel account (policies), and which agent answers (bindings).
//
// Policies: dm_policy applies to direct messages and group_policy to groups. `allow` lets everyone
// in, `disabled` no one, `allowlist` only ids listed in the account's allow_from: the sender's id for
// a direct message, the chat's id for a group (a group is admitted as a whole). `pairing` (DMs only)
// is an allowlist that an unknown sender may ask to join with a code (channels/pairing.ts).
//
// Bindings (GUIDE §8), most specific first: a peer match, then an account match, then a channel
// match, then the `default` binding, then agent `main`. Within one level the first binding in the
// list wins. The peer of a message is the chat id for a group and the sender id for a direct
// message (the same value a group allowlist or a DM allowlist uses). Every field a binding sets
// must agree with the message: a peer binding that also names a channel or account only matches
// there. Bindings choose the agent; they never admit a message that the policy refused.
import type { AccountConfig, BindingConfig } from '../config/schema.ts';
import type { InboundMessage } from './types.ts';

export const DEFAULT_AGENT = 'main';

export type PolicyDecision =
  | { allowed: true }
  | {
      allowed: false;
      reason: string;
      /** dm_policy pairing: the sender may ask for a code. */ pairing?: true;
    };

/** The id a binding's `peer` and an allowlist compare with. */
export function peerOf(message: Pick<InboundMessage, 'chatType' | 'chatId' | 'senderId'>): string {
  return message.chatType === 'group' ? message.chatId : message.senderId;
}

export function checkPolicy(account: AccountConfig, message: InboundMessage): PolicyDecision {
  const policy = message.chatType === 'dm' ? account.dm_policy : account.group_policy;
  switch (policy) {
    case 'allow':
      return { allowed: true };
    case 'disabled':
      return { allowed: false, reason: `${message.chatType === 'dm' ? 'dm' : 'group'}_policy is disabled` };
    case 'pairing':
      return account.allow_from.includes(peerOf(message))
        ? { allowed: true }
        : { allowed: false, reason: 'sender is not paired (dm_policy pairing)', pairing: true };
    case 'allowlist':
      return account.allow_from.includes(peerOf(message))
        ? { allowed: true }
        : {
            allowed: false,
            reason: `${message.chatType === 'dm' ? 'sender' : 'group'} is not in allow_from`,
          };
  }
}

export interface Route {
  agentId: string;
  /** Which rule chose it: peer, account, channel, default or fallback. */
  via: 'peer' | 'account' | 'channel' | 'default' | 'fallback';
}

export function resolveAgent(bindings: readonly BindingConfig[], message: InboundMessage): Route {
  const peer = peerOf(message);
  const agrees = (binding: BindingConfig): boolean => {
    const { channel, account_id: accountId } = binding.match;
    return (
      (channel === undefined || channel === message.platform) &&
      (accountId === undefined || accountId === message.accountId)
    );
  };
  const levels: Array<[Route['via'], (binding: BindingConfig) => boolean]> = [
    ['peer', (b) => b.match.peer !== undefined && b.match.peer === peer && agrees(b)],
    ['account', (b) => b.match.peer === undefined && b.match.account_id !== undefined && agrees(b)],
    [
      'channel',
      (b) =>
        b.match.peer === undefined &&
        b.match.account_id === undefined &&
        b.match.channel !== undefined &&
        agrees(b),
    ],
    ['default', (b) => b.match.default === true && b.match.peer === undefined && agrees(b)],
  ];
  for (const [via, matches] of levels) {
    const found = bindings.find(matches);
    if (found) return { agentId: found.agent_id, via };
  }
  return { agentId: DEFAULT_AGENT, via: 'fallback' };
}
