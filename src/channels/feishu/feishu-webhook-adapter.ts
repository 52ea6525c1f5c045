// Feishu over HTTP event callbacks (platform `feishu_webhook`): Feishu POSTs each event to
// /webhooks/feishu_webhook/{accountId}. A request is checked before anything else: with an Encrypt
// Key its signature (every event) and its encryption, and always its Verification Token; one that
// fails is a 401 and starts nothing. Feishu waits 3 seconds for an answer and redelivers otherwise,
// so an event is acknowledged at once and the agent answers later through the API.
import { waitAtMost } from '../../core/async.ts';
import type { ChannelAccount, InboundMessage, InboundStyle, WebhookReply, WebhookRequest } from '../types.ts';
import { FeishuAdapterBase } from './feishu-adapter-base.ts';
import { decryptEvent, sameSecret, validSignature } from './event-crypto.ts';
import { feishuWebhookAccount, type FeishuAccount } from './account.ts';

const refused = (error: string): WebhookReply => ({ status: 401, body: { error } });

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}

export class FeishuWebhookAdapter extends FeishuAdapterBase {
  readonly platform = 'feishu_webhook' as const;
  readonly accountFields = feishuWebhookAccount;

  inboundStyle(): InboundStyle {
    return 'webhook';
  }

  async handleWebhook(
    account: ChannelAccount<FeishuAccount>,
    request: WebhookRequest,
    deliver: (message: InboundMessage) => void,
  ): Promise<WebhookReply> {
    if (request.method !== 'POST') return { status: 405, body: { error: 'events are POSTed' } };
    const { verification_token: verificationToken, encrypt_key: encryptKey } = account.config;
    if (!verificationToken) return refused('the account has no verification_token');
    const outer = parseObject(request.body.toString('utf8'));
    if (!outer) return { status: 400, body: { error: 'the body is not a JSON object' } };
    const signed = request.headers['x-lark-signature'] !== undefined;
    if (encryptKey && signed && !validSignature(request.headers, encryptKey, request.body)) {
      return refused('bad signature');
    }
    let payload = outer;
    if (typeof outer['encrypt'] === 'string') {
      if (!encryptKey) return refused('an encrypted event, but the account has no encrypt_key');
      let decrypted: Record<string, unknown> | undefined;
      try {
        decrypted = parseObject(decryptEvent(outer['encrypt'], encryptKey));
      } catch {
        decrypted = undefined;
      }
      if (!decrypted) return refused('the event does not decrypt with the encrypt_key');
      payload = decrypted;
    }
    const header = record(payload['header']);
    const token = payload['token'] ?? header['token'];
    if (typeof token !== 'string' || !sameSecret(token, verificationToken))
      return refused('bad verification token');
    if (payload['type'] === 'url_verification') {
      // Feishu's URL check is not signed; decrypting it (with an Encrypt Key) and its token prove it.
      return { status: 200, body: { challenge: String(payload['challenge'] ?? '') } };
    }
    if (encryptKey && !signed) return refused('the event is not signed');
    if (header['event_type'] === 'im.message.receive_v1') {
      const eventId = typeof header['event_id'] === 'string' ? header['event_id'] : undefined;
      // Feishu redelivers what is not acknowledged within 3 seconds: the message is handed on (and
      // recorded) before the answer unless that takes longer (pictures to fetch).
      await waitAtMost(this.receiveMessage(account, eventId, payload['event'], deliver), 2_000);
    }
    return { status: 200, body: {} };
  }
}
