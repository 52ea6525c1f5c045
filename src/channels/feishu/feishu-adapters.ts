// The two Feishu platforms, as the composition root lists them: `feishu` (long connection) and
// `feishu_webhook` (HTTP callbacks), one bot either way.
import type { ChannelAdapter } from '../types.ts';
import type { FeishuOptions } from './feishu-adapter-base.ts';
import { FeishuAdapter } from './feishu-adapter.ts';
import { FeishuWebhookAdapter } from './feishu-webhook-adapter.ts';

export function feishuAdapters(options: FeishuOptions = {}): ChannelAdapter[] {
  return [new FeishuAdapter(options), new FeishuWebhookAdapter(options)];
}
