// Channel platforms and their accounts, kept in the channels section of the config file. Secrets
// (app_secret, and the api platform's api_key) are write-only: views show hasSecret.
import type { ConfigStore } from '../../config/config-store.ts';
import { PLATFORMS, type AccountConfig, type Config, type Platform } from '../../config/schema.ts';
import { conflict, notFound } from '../../core/errors.ts';
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

function accountView(platform: Platform, id: string, account: AccountConfig): AccountView {
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
  };
}

function platformView(config: Config, platform: Platform): PlatformView {
  const section = config.channels[platform];
  return {
    enabled: section?.enabled ?? false,
    accounts: Object.fromEntries(
      Object.entries(section?.accounts ?? {}).map(([id, account]) => [
        id,
        accountView(platform, id, account),
      ]),
    ),
  };
}

function defined(value: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}

export class ChannelsService {
  constructor(private readonly store: ConfigStore) {}

  all() {
    const config = this.store.current;
    return {
      platforms: Object.fromEntries(PLATFORMS.map((platform) => [platform, platformView(config, platform)])),
    };
  }

  platform(name: string) {
    return platformView(this.store.current, platformOf(name));
  }

  account(name: string, id: string) {
    const platform = platformOf(name);
    const account = own(this.store.current.channels[platform]?.accounts, id);
    if (!account) throw notFound(`account "${id}" not found on platform "${platform}"`);
    return accountView(platform, id, account);
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
      editor.merge(
        ['channels', platform, 'accounts', id],
        defined({
          ...fields,
          ...(secret ? { [platform === 'api' ? 'api_key' : 'app_secret']: secret } : {}),
        }),
      );
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
