// The bot's side of DM pairing: an unpaired sender of a dm_policy pairing account is sent a code
// once (while it is pending, later messages get nothing), to be approved by an admin in the web UI
// (Channels page) or with `agent-service pairing approve <code>`.
import { errorMessage } from '../core/errors.ts';
import type { InboundDeps } from './inbound.ts';
import type { PairingStore } from './pairing-store.ts';
import type { InboundMessage } from './types.ts';

export function pairingText(code: string): string {
  return (
    `This bot only answers people its admin has approved. Your pairing code is ${code} ` +
    `(valid for one hour). Send it to the admin, who approves it with: agent-service pairing approve ${code}`
  );
}

export async function offerPairing(
  message: InboundMessage,
  deps: InboundDeps,
  pairing: PairingStore,
  where: object,
): Promise<void> {
  if (message.chatType !== 'dm') return;
  try {
    const request = await pairing.request({
      platform: message.platform,
      accountId: message.accountId,
      senderId: message.senderId,
    });
    if (!request) return;
    await deps.adapter.sendText(deps.account, message.chatId, pairingText(request.code), {
      replyContext: message.replyContext,
      signal: deps.signal,
    });
    deps.logger?.info(where, 'pairing code sent');
  } catch (error) {
    if (!deps.signal.aborted)
      deps.logger?.warn({ ...where, err: errorMessage(error) }, 'could not send a pairing code');
  }
}
