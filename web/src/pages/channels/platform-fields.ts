// What each platform's account form asks for (the fields its adapter checks on the server), and
// the shapes of the channels answers.

export type Policy = 'allow' | 'allowlist' | 'disabled' | 'pairing';

export interface AccountView {
  id: string;
  name: string;
  description: string;
  enabled: boolean;
  dmPolicy: Policy;
  groupPolicy: Policy;
  allowFrom: string[];
  appId: string;
  hasSecret: boolean;
  secretsSet: string[];
  groupRequireMention?: boolean;
  mode?: 'bot' | 'app';
  agentId?: string;
  cardTemplateId?: string;
  status: {
    state: 'connected' | 'connecting' | 'error' | 'disabled';
    error?: string;
    since: string;
    instance?: string;
  };
}

export interface PlatformView {
  enabled: boolean;
  accounts: Record<string, AccountView>;
}

export interface FieldSpec {
  key: string;
  label: string;
  help?: string;
  /** Write-only: never shown, only "set" / "not set"; left empty, it keeps its value. */
  secret?: boolean;
  /** Shown only in this wecom mode. */
  mode?: 'bot' | 'app';
}

export interface PlatformSpec {
  id: string;
  label: string;
  intro: string;
  /** The field that holds the main secret (hasSecret). */
  mainSecret: 'api_key' | 'app_secret';
  fields: FieldSpec[];
  /** Whether group chats exist on the platform (group policy, mention rule). */
  groups: boolean;
}

const API_BASE: FieldSpec = {
  key: 'api_base',
  label: 'API base URL (optional)',
  help: 'The platform API’s origin: a private deployment, a proxy or Lark international. Never shown once saved.',
  secret: true,
};

export const PLATFORM_SPECS: PlatformSpec[] = [
  {
    id: 'api',
    label: 'API',
    intro: 'Keys for applications that call the chat endpoint. Each application should get its own account.',
    mainSecret: 'api_key',
    groups: false,
    fields: [
      {
        key: 'api_key',
        label: 'API key',
        help: 'Left empty on create, a key is generated and shown once. At least 16 characters.',
        secret: true,
      },
    ],
  },
  {
    id: 'feishu',
    label: 'Feishu / Lark',
    intro: 'A Feishu or Lark app over the long connection.',
    mainSecret: 'app_secret',
    groups: true,
    fields: [
      { key: 'app_id', label: 'App ID', help: '"cli_" and 16 hexadecimal digits.' },
      { key: 'app_secret', label: 'App Secret', secret: true },
      { key: 'verification_token', label: 'Verification Token (optional)', secret: true },
      { key: 'encrypt_key', label: 'Encrypt Key (optional)', secret: true },
      API_BASE,
    ],
  },
  {
    id: 'feishu_webhook',
    label: 'Feishu (event callbacks)',
    intro: 'A Feishu app that receives events at /webhooks/feishu_webhook/<account id>.',
    mainSecret: 'app_secret',
    groups: true,
    fields: [
      { key: 'app_id', label: 'App ID' },
      { key: 'app_secret', label: 'App Secret', secret: true },
      { key: 'verification_token', label: 'Verification Token', secret: true },
      { key: 'encrypt_key', label: 'Encrypt Key (optional)', secret: true },
      API_BASE,
    ],
  },
  {
    id: 'dingtalk',
    label: 'DingTalk',
    intro: 'A DingTalk robot in Stream mode.',
    mainSecret: 'app_secret',
    groups: true,
    fields: [
      { key: 'app_id', label: 'Client ID (AppKey)' },
      { key: 'app_secret', label: 'Client Secret (AppSecret)', secret: true },
      {
        key: 'card_template_id',
        label: 'AI card template ID (optional)',
        help: 'Answers stream into this card; plain Markdown when empty.',
      },
      API_BASE,
    ],
  },
  {
    id: 'wecom',
    label: 'WeCom',
    intro: 'A WeCom smart robot (long connection), or a self-built app over callbacks.',
    mainSecret: 'app_secret',
    groups: true,
    fields: [
      { key: 'app_id', label: 'Bot ID', mode: 'bot' },
      { key: 'app_secret', label: 'Bot Secret', secret: true, mode: 'bot' },
      { key: 'app_id', label: 'Corp ID', mode: 'app' },
      { key: 'agent_id', label: 'AgentId', help: 'The app’s numeric AgentId.', mode: 'app' },
      { key: 'app_secret', label: 'App Secret', secret: true, mode: 'app' },
      { key: 'token', label: 'Callback Token', secret: true, mode: 'app' },
      {
        key: 'encoding_aes_key',
        label: 'Callback EncodingAESKey',
        help: '43 characters.',
        secret: true,
        mode: 'app',
      },
      API_BASE,
    ],
  },
  {
    id: 'telegram',
    label: 'Telegram',
    intro: 'A Telegram bot over long polling.',
    mainSecret: 'app_secret',
    groups: true,
    fields: [{ key: 'app_secret', label: 'Bot token', help: 'From @BotFather.', secret: true }, API_BASE],
  },
  {
    id: 'slack',
    label: 'Slack',
    intro: 'A Slack app in Socket Mode (app-level token) or over the Events API (signing secret).',
    mainSecret: 'app_secret',
    groups: true,
    fields: [
      { key: 'app_secret', label: 'Bot token (xoxb-…)', secret: true },
      { key: 'app_token', label: 'App-level token (xapp-…)', help: 'For Socket Mode.', secret: true },
      {
        key: 'signing_secret',
        label: 'Signing secret',
        help: 'For the Events API instead of Socket Mode.',
        secret: true,
      },
      API_BASE,
    ],
  },
  {
    id: 'discord',
    label: 'Discord',
    intro: 'A Discord bot.',
    mainSecret: 'app_secret',
    groups: true,
    fields: [
      { key: 'app_id', label: 'Application ID (optional)' },
      { key: 'app_secret', label: 'Bot token', secret: true },
      API_BASE,
    ],
  },
];

export function platformSpec(id: string): PlatformSpec {
  return (
    PLATFORM_SPECS.find((spec) => spec.id === id) ?? {
      id,
      label: id,
      intro: '',
      mainSecret: 'app_secret',
      groups: true,
      fields: [],
    }
  );
}

/** Whether a secret field is set on a stored account (api_base is never reported). */
export function isSecretSet(spec: PlatformSpec, account: AccountView, key: string): boolean | undefined {
  if (key === 'api_base') return undefined;
  if (key === spec.mainSecret) return account.hasSecret;
  return account.secretsSet.includes(key);
}

/** The visible value of a plain field on a stored account. */
export function plainValue(account: AccountView, key: string): string {
  switch (key) {
    case 'app_id':
      return account.appId;
    case 'agent_id':
      return account.agentId ?? '';
    case 'card_template_id':
      return account.cardTemplateId ?? '';
    default:
      return '';
  }
}

export const POLICY_LABELS: Record<Policy, string> = {
  allow: 'Anyone',
  allowlist: 'Only the allowlist',
  disabled: 'Nobody (off)',
  pairing: 'Pairing: unknown senders get a code to approve',
};
