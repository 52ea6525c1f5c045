// The fields of the two Feishu platforms' accounts: `feishu` (long connection) and
// `feishu_webhook` (event callbacks, which need the subscription's Verification Token).
import { z } from 'zod';
import { apiBaseField, platformAccount, secretField, textField, type AccountOf } from '../account-schema.ts';

const API_BASE_HELP =
  'The platform API’s origin: a private deployment, a proxy or Lark international. Never shown once saved.';

const appSecret = secretField({ label: 'App Secret', required: true, missing: 'the App Secret' });
const encryptKey = secretField({ label: 'Encrypt Key (optional)' });

export const feishuAccount = platformAccount({
  platform: 'feishu',
  label: 'Feishu / Lark',
  intro: 'A Feishu or Lark app over the long connection.',
  fields: {
    app_id: textField(
      { label: 'App ID', help: '"cli_" and 16 hexadecimal digits.', required: true, missing: 'the App ID' },
      // The SDK refuses (silently) any other app id.
      z
        .string()
        .regex(
          /^cli_[0-9a-fA-F]{16}$/,
          'must be the App ID of the console, "cli_" and 16 hexadecimal digits',
        ),
    ),
    app_secret: appSecret,
    verification_token: secretField({ label: 'Verification Token (optional)' }),
    encrypt_key: encryptKey,
    api_base: apiBaseField(API_BASE_HELP),
  },
});

export const feishuWebhookAccount = platformAccount({
  platform: 'feishu_webhook',
  label: 'Feishu (event callbacks)',
  intro: 'A Feishu app that receives events at /webhooks/feishu_webhook/<account id>.',
  fields: {
    app_id: textField({ label: 'App ID', required: true, missing: 'the App ID' }),
    app_secret: appSecret,
    verification_token: secretField({
      label: 'Verification Token',
      required: true,
      missing: 'the Verification Token of the event subscription',
    }),
    encrypt_key: encryptKey,
    api_base: apiBaseField(API_BASE_HELP),
  },
});

/** An account of either Feishu platform: the same fields. */
export type FeishuAccount = AccountOf<typeof feishuWebhookAccount>;
