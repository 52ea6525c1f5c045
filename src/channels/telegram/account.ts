// A Telegram account's fields: the bot token, and the Bot API's origin.
import { apiBaseField, platformAccount, secretField } from '../account-schema.ts';

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

export type TelegramAccount = typeof telegramAccount extends { schema: { _zod: { output: infer C } } }
  ? C
  : never;
