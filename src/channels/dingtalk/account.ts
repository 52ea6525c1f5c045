// A DingTalk account's fields: the robot's client id and secret, and the AI card streamed into.
import { apiBaseField, platformAccount, secretField, textField, type AccountOf } from '../account-schema.ts';

export const dingtalkAccount = platformAccount({
  platform: 'dingtalk',
  label: 'DingTalk',
  intro: 'A DingTalk robot in Stream mode.',
  fields: {
    app_id: textField({ label: 'Client ID (AppKey)', required: true, missing: 'the client id (AppKey)' }),
    app_secret: secretField({
      label: 'Client Secret (AppSecret)',
      required: true,
      missing: 'the client secret (AppSecret)',
    }),
    card_template_id: textField({
      label: 'AI card template ID (optional)',
      help: 'Answers stream into this card; plain Markdown when empty.',
    }),
    api_base: apiBaseField(),
  },
});

export type DingTalkAccount = AccountOf<typeof dingtalkAccount>;
