// Platform callbacks: POST (and GET, for URL checks) /webhooks/{platform}/{accountId}. No JWT: the
// platform's own signature, token or encryption is verified by its adapter, and a request that
// fails it is a 401 that starts no turn.
import type { WebhookReply, WebhookRequest } from '../../channels/types.ts';
import { platformOf } from '../channels/channels.service.ts';

export interface WebhookReceiver {
  handleWebhook(
    platform: ReturnType<typeof platformOf>,
    accountId: string,
    request: WebhookRequest,
  ): Promise<WebhookReply>;
}

export class WebhooksService {
  constructor(private readonly receiver: WebhookReceiver) {}

  handle(platform: string, accountId: string, request: WebhookRequest): Promise<WebhookReply> {
    return this.receiver.handleWebhook(platformOf(platform), accountId, request);
  }
}
