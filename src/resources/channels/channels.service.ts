// Channel platforms and their accounts, kept in the channels section of the config file. Secrets
// (app_secret, and the api platform's api_key) are write-only: views show hasSecret.
import type { ConfigStore } from '../../config/config-store.ts';
import {
  ACCOUNT_SECRET_FIELDS,
  PLATFORMS,
  accountSchema,
  type AccountConfig,
  type Config,
  type Platform,
} from '../../config/schema.ts';
import { conflict, invalid, notFound } from '../../core/errors.ts';
import { own, randomToken } from '../../core/ids.ts';
import type { AccountBody, AccountPatch, AccountView, PlatformView } from './channels.schema.ts';

/** The platform a path names; an unknown one is a 404. */
export function platformOf(name: string): Platform {
  if (!(PLATFORMS as readonly string[]).includes(name)) {
    throw notFound(`unknown channel platform "${name}"; known: ${PLATFORMS.join(', ')}`);
  }
  return name as Platform;
}

function secretOf(platform: Platform, account: AccountConfig): string | undefined {
  return platform === 'api' ? account.api_key : account.app_secret;
}

/** Connection state and per-platform checks, from the channel manager. */
export interface ChannelRuntime {
  status(platform: Platform, accountId: string): AccountView['status'];
  validateAccount(platform: Platform, account: AccountConfig): string[];
}

function accountView(
  platform: Platform,
  id: string,
  account: AccountConfig,
  runtime: ChannelRuntime,
): AccountView {
  const main = platform === 'api' ? 'api_key' : 'app_secret';
  return {
    id,
    name: account.name,
    description: account.description,
    enabled: account.enabled,
    dmPolicy: account.dm_policy,
    groupPolicy: account.group_policy,
    allowFrom: account.allow_from,
    appId: account.app_id ?? '',
    hasSecret: Boolean(secretOf(platform, account)),
    secretsSet: ACCOUNT_SECRET_FIELDS.filter((field) => field !== main && Boolean(account[field])),
    ...(account.group_require_mention === undefined
      ? {}
      : { groupRequireMention: account.group_require_mention }),
    ...(account.mode === undefined ? {} : { mode: account.mode }),
    ...(account.agent_id === undefined ? {} : { agentId: account.agent_id }),
    ...(account.card_template_id === undefined ? {} : { cardTemplateId: account.card_template_id }),
    status: runtime.status(platform, id),
  };
}

/** Refuses an account its platform cannot use (a missing credential, another platform's field). */
function checkAccount(runtime: ChannelRuntime, platform: Platform, id: string, raw: unknown): void {
  const parsed = accountSchema.safeParse(raw);
  if (!parsed.success) return; // the config schema reports it with its path when the file is validated
  const problems = runtime.validateAccount(platform, parsed.data);
  if (problems.length > 0) throw invalid(`${platform} account "${id}": ${problems.join('; ')}`);
}

function platformView(config: Config, platform: Platform, runtime: ChannelRuntime): PlatformView {
  const section = config.channels[platform];
  return {
    enabled: section?.enabled ?? false,
    accounts: Object.fromEntries(
      Object.entries(section?.accounts ?? {}).map(([id, account]) => [
        id,
        accountView(platform, id, account, runtime),
      ]),
    ),
  };
}

function defined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

export class ChannelsService {
  constructor(
    private readonly store: ConfigStore,
    private readonly runtime: ChannelRuntime,
  ) {}

  all() {
    const config = this.store.current;
    return {
      platforms: Object.fromEntries(
        PLATFORMS.map((platform) => [platform, platformView(config, platform, this.runtime)]),
      ),
    };
  }

  platform(name: string) {
    return platformView(this.store.current, platformOf(name), this.runtime);
  }

  account(name: string, id: string) {
    const platform = platformOf(name);
    const account = own(this.store.current.channels[platform]?.accounts, id);
    if (!account) throw notFound(`account "${id}" not found on platform "${platform}"`);
    return accountView(platform, id, account, this.runtime);
  }

  /** Creates an account; an api account without a key gets one, returned here once as apiKey. */
  async create(name: string, input: AccountBody) {
    const platform = platformOf(name);
    let generated: string | undefined;
    await this.store.update((editor, current) => {
      if (own(current.channels[platform]?.accounts, input.id)) {
        throw conflict(`account "${input.id}" already exists on platform "${platform}"`);
      }
      const { id, binding, api_key, app_secret, ...fields } = input;
      const secret = platform === 'api' ? (api_key ?? app_secret) : app_secret;
      if (platform === 'api' && !secret) generated = `sk-${randomToken(24)}`;
      const stored = defined({
        ...fields,
        ...(platform === 'api' ? { api_key: secret ?? generated } : { app_secret: secret }),
      });
      checkAccount(this.runtime, platform, id, stored);
      if (!current.channels[platform]) editor.set(['channels', platform], { enabled: true, accounts: {} });
      editor.set(['channels', platform, 'accounts', id], stored);
      if (binding) {
        const bindings = [...current.bindings];
        bindings.push({
          agent_id: binding.agentId,
          match: { channel: platform, account_id: id, ...toFileMatch(binding.match) },
        });
        editor.set(['bindings'], bindings);
      }
    });
    return { ...this.account(platform, input.id), ...(generated ? { apiKey: generated } : {}) };
  }

  async update(name: string, id: string, patch: AccountPatch) {
    const platform = platformOf(name);
    await this.store.update((editor, current) => {
      if (!own(current.channels[platform]?.accounts, id))
        throw notFound(`account "${id}" not found on platform "${platform}"`);
      const { api_key, app_secret, ...fields } = patch;
      const secret = platform === 'api' ? (api_key ?? app_secret) : app_secret;
      const changes = defined({
        ...fields,
        ...(secret ? { [platform === 'api' ? 'api_key' : 'app_secret']: secret } : {}),
      });
      checkAccount(this.runtime, platform, id, {
        ...(editor.get(['channels', platform, 'accounts', id]) as object),
        ...changes,
      });
      editor.merge(['channels', platform, 'accounts', id], changes);
    });
    return this.account(platform, id);
  }

  async remove(name: string, id: string): Promise<void> {
    const platform = platformOf(name);
    await this.store.update((editor, current) => {
      if (!own(current.channels[platform]?.accounts, id))
        throw notFound(`account "${id}" not found on platform "${platform}"`);
      editor.delete(['channels', platform, 'accounts', id]);
      const bindings = current.bindings.filter(
        (b) => !(b.match.channel === platform && b.match.account_id === id),
      );
      if (bindings.length !== current.bindings.length) editor.set(['bindings'], bindings);
    });
  }
}

/** API match fields (accountId) to config file names (account_id). */
function toFileMatch(match: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!match) return {};
  const { accountId, ...rest } = match;
  return defined({ ...rest, account_id: accountId, channel: undefined });
}
