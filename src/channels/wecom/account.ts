// A WeCom account's fields. `mode` chooses the kind: a smart robot on the long connection (bot id
// and secret), or a self-built app over callbacks (corp id, AgentId, secret, callback token and key).
import { z } from 'zod';
import { apiBaseField, platformAccount, secretField, textField, type AccountOf } from '../account-schema.ts';

/** A 43-character EncodingAESKey that decodes to 32 bytes. */
function isEncodingAesKey(value: string): boolean {
  return /^[A-Za-z0-9+/]{43}$/.test(value) && Buffer.from(`${value}=`, 'base64').length === 32;
}

export const wecomAccount = platformAccount({
  platform: 'wecom',
  label: 'WeCom',
  intro: 'A WeCom smart robot (long connection), or a self-built app over callbacks.',
  fields: {
    mode: z.enum(['bot', 'app']).meta({
      label: 'Mode',
      options: { bot: 'Smart robot (long connection)', app: 'Self-built app (callbacks)' },
    }),
    app_id: textField({
      label: 'Bot ID',
      required: true,
      missing: 'the bot id',
      modes: { app: { label: 'Corp ID', missing: 'the corp id' } },
    }),
    agent_id: textField(
      {
        label: 'AgentId',
        help: 'The app’s numeric AgentId.',
        required: true,
        missing: "the app's AgentId",
        mode: 'app',
      },
      z.string().regex(/^\d{1,12}$/, "must be the app's numeric AgentId"),
    ),
    app_secret: secretField({
      label: 'Bot Secret',
      required: true,
      missing: 'the bot secret',
      modes: { app: { label: 'App Secret', missing: "the app's Secret" } },
    }),
    token: secretField({
      label: 'Callback Token',
      required: true,
      missing: "the callback's Token",
      mode: 'app',
    }),
    encoding_aes_key: z
      .string()
      .refine(isEncodingAesKey, 'must be the 43-character EncodingAESKey of the callback')
      .meta({
        label: 'Callback EncodingAESKey',
        help: '43 characters.',
        secret: true,
        required: true,
        missing: "the callback's EncodingAESKey",
        mode: 'app',
      }),
    api_base: apiBaseField(),
  },
});

export type WecomAccount = AccountOf<typeof wecomAccount>;

export const modeOf = (account: WecomAccount): 'bot' | 'app' => account.mode ?? 'bot';
