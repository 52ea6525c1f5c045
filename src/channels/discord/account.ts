// A Discord account's fields: the bot token and, optionally, the application id.
import { z } from 'zod';
import { apiBaseField, platformAccount, secretField, textField, type AccountOf } from '../account-schema.ts';

/** Discord's ids: a number (a snowflake). */
export const SNOWFLAKE = /^\d{1,25}$/;

export const discordAccount = platformAccount({
  platform: 'discord',
  label: 'Discord',
  intro: 'A Discord bot.',
  fields: {
    app_id: textField(
      { label: 'Application ID (optional)' },
      z.string().regex(SNOWFLAKE, 'the application id is a number (a snowflake)'),
    ),
    app_secret: secretField({ label: 'Bot token', required: true, missing: 'the bot token' }).refine(
      (value) => !/\s/.test(value.trim().replace(/^Bot\s+/i, '')),
      'a bot token has no spaces',
    ),
    api_base: apiBaseField(),
  },
});

export type DiscordAccount = AccountOf<typeof discordAccount>;
