// A Telegram account's fields: the bot token, and the Bot API's origin.
import { apiBaseField, platformAccount, secretField, type AccountOf } from '../account-schema.ts';

export const telegramAccount = platformAccount({
  platform: 'telegram',
  label: 'Telegram',
  intro: 'A Telegram bot over long polling.',
  fields: {
    app_secret: secretField({
      label: 'Bot token',
      help: 'From @BotFather.',
      required: true,
      missing: 'the bot token',
    }),
    api_base: apiBaseField(),
  },
});

export type TelegramAccount = AccountOf<typeof telegramAccount>;
