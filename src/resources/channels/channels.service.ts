// Channel platforms and their accounts, kept in the channels section of the config file. What a
// platform's accounts take is its declaration's (channels/<platform>/account.ts): the checks, which
// fields are secret (write-only: views show hasSecret and secretsSet) and the form.
import {
  describePlatform,
  metaOf,
  platformFieldsView,
  type PlatformAccount,
} from '../../channels/account-schema.ts';
import type { ConfigStore } from '../../config/config-store.ts';
import { PLATFORMS, type AccountConfig, type Config, type Platform } from '../../config/schema.ts';
import { conflict, invalid, notFound } from '../../core/errors.ts';
import { randomToken } from '../../core/ids.ts';
import { own } from '../../core/id-schema.ts';
import type { AccountBody, AccountPatch, AccountView, PlatformView } from './channels.schema.ts';

/** The platform a path names; an unknown one is a 404. */
export function platformOf(name: string): Platform {
  if (!(PLATFORMS as readonly string[]).includes(name)) {
    throw notFound(`unknown channel platform "${name}"; known: ${PLATFORMS.join(', ')}`);
  }
  return name as Platform;
}

/** Connection state and the platforms' account fields, from the channel manager. */
export interface ChannelRuntime {
  status(platform: Platform, accountId: string): AccountView['status'];
  /** The problems of an account for its platform ("field: why"), none when it may be saved. */
  validateAccount(platform: Platform, account: unknown): string[];
  accountFields(platform: Platform): PlatformAccount | undefined;
  platformAccounts(): PlatformAccount[];
}

function accountView(
  platform: Platform,
  id: string,
  account: AccountConfig,
  runtime: ChannelRuntime,
): AccountView {
  const fields = runtime.accountFields(platform);
  const shown = fields
    ? platformFieldsView(fields, account)
    : { hasSecret: false, secretsSet: [], plain: {} };
  return {
    id,
    name: account.name,
    description: account.description,
    enabled: account.enabled,
    dmPolicy: account.dm_policy,
    groupPolicy: account.group_policy,
    allowFrom: account.allow_from,
    appId: '',
    hasSecret: shown.hasSecret,
    secretsSet: shown.secretsSet,
    ...(account.group_require_mention === undefined
      ? {}
      : { groupRequireMention: account.group_require_mention }),
    ...shown.plain,
    status: runtime.status(platform, id),
  };
}

/** Refuses an account its platform cannot use (a missing credential, another platform's field). */
function checkAccount(runtime: ChannelRuntime, platform: Platform, id: string, raw: unknown): void {
  const problems = runtime.validateAccount(platform, raw);
  if (problems.length > 0) throw invalid(`${platform} account "${id}": ${problems.join('; ')}`);
}

/**
 * The fields a write sets: those given, less the secrets left empty (an empty secret keeps the
 * stored one). An api account also takes its key as app_secret, as the other platforms name it.
 */
function writtenFields(
  runtime: ChannelRuntime,
  platform: Platform,
  input: Record<string, unknown>,
): Record<string, unknown> {
  const fields = runtime.accountFields(platform)?.fields ?? {};
  const given = { ...input };
  if (platform === 'api' && given['api_key'] === undefined && given['app_secret'] !== undefined) {
    given['api_key'] = given['app_secret'];
    delete given['app_secret'];
  }
  return Object.fromEntries(
    Object.entries(given).filter(([name, value]) => {
      if (value === undefined) return false;
      const field = fields[name];
      return !(field && metaOf(field).secret && value === '');
    }),
  );
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

const isSet = (value: unknown): boolean => typeof value === 'string' && value !== '';

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

  /** Every platform's account form: its fields, their labels and help, and which are secret. */
  platforms() {
    return { platforms: this.runtime.platformAccounts().map(describePlatform) };
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
      const { id, binding, ...fields } = input;
      const stored = writtenFields(this.runtime, platform, fields);
      if (platform === 'api' && !isSet(stored['api_key'])) {
        generated = `sk-${randomToken(24)}`;
        stored['api_key'] = generated;
      }
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
      const changes = writtenFields(this.runtime, platform, patch);
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
