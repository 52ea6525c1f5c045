// The adapters of the platforms we support, built once by the composition root. Adding a platform
// means one line here (and its folder beside this file).
import type { Logger } from '../core/logger.ts';
import { DingTalkAdapter } from './dingtalk/dingtalk-adapter.ts';
import { DiscordAdapter } from './discord/discord-adapter.ts';
import { feishuAdapters } from './feishu/feishu-adapters.ts';
import { SlackAdapter } from './slack/slack-adapter.ts';
import { TelegramAdapter, type TelegramOptions } from './telegram/telegram-adapter.ts';
import type { ChannelAdapter } from './types.ts';
import { WecomAdapter } from './wecom/wecom-adapter.ts';

export interface AdapterOptions {
  telegram?: Omit<TelegramOptions, 'logger'>;
  logger: Logger;
}

export function builtInAdapters(options: AdapterOptions): ChannelAdapter[] {
  return [
    new TelegramAdapter({ ...options.telegram, logger: options.logger }),
    ...feishuAdapters({ logger: options.logger }),
    new DingTalkAdapter({ logger: options.logger }),
    new WecomAdapter({ logger: options.logger }),
    new DiscordAdapter({ logger: options.logger }),
    new SlackAdapter({ logger: options.logger }),
  ];
}
