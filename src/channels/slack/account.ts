// A Slack account's fields: the bot token, and either the app-level token (Socket Mode) or the
// signing secret (Events API).
import { apiBaseField, platformAccount, secretField, type AccountOf } from '../account-schema.ts';

export const slackAccount = platformAccount({
  platform: 'slack',
  label: 'Slack',
  intro: 'A Slack app in Socket Mode (app-level token) or over the Events API (signing secret).',
  fields: {
    // The two tokens swapped would only be answered with invalid_auth; say so at once.
    app_secret: secretField({
      label: 'Bot token (xoxb-…)',
      required: true,
      missing: 'the bot token (xoxb-...)',
    }).refine(
      (value) => !value.startsWith('xapp-'),
      'this is an app-level token (xapp-); app_secret takes the bot token (xoxb-)',
    ),
    app_token: secretField({ label: 'App-level token (xapp-…)', help: 'For Socket Mode.' }).refine(
      (value) => !value.startsWith('xox'),
      'this is a bot or user token; app_token takes the app-level token (xapp-)',
    ),
    signing_secret: secretField({
      label: 'Signing secret',
      help: 'For the Events API instead of Socket Mode.',
    }),
    api_base: apiBaseField(),
  },
  check(account) {
    if (account.enabled && !account.app_token && !account.signing_secret) {
      return [
        'app_token: the app-level token (xapp-...) of Socket Mode is required, or signing_secret for the Events API',
      ];
    }
    return [];
  },
});

export type SlackAccount = AccountOf<typeof slackAccount>;
