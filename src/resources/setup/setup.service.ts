// The first-run wizard (web UI) over REST: whether it is needed, and adding the first provider only
// once a live completion proved it. The other steps use the users, security and channels routes.
import type { ConfigStore } from '../../config/config-store.ts';
import { AppError } from '../../core/errors.ts';
import type { ModelsService } from '../models/models.service.ts';
import { hasDefaultAdminPassword } from '../users/users.service.ts';
import { checkTelegram, proveProvider } from './prove-provider.ts';
import type {
  SetupProviderAnswer,
  SetupProviderBody,
  SetupStatus,
  SetupTelegramBody,
} from './setup.schema.ts';

export class SetupService {
  constructor(
    private readonly store: ConfigStore,
    private readonly models: ModelsService,
  ) {}

  async status(): Promise<SetupStatus> {
    const config = this.store.current;
    const hasProvider = Object.keys(config.models.providers).length > 0;
    const defaultAdminPassword = await hasDefaultAdminPassword(config);
    return {
      needed: !hasProvider && defaultAdminPassword,
      hasProvider,
      defaultAdminPassword,
      requireAuth: config.security.requireAuth,
    };
  }

  async addProvider(body: SetupProviderBody): Promise<SetupProviderAnswer> {
    const proof = await proveProvider({
      id: body.id,
      baseUrl: body.base_url,
      model: body.model,
      apiKey: body.api_key,
    });
    if (!proof.ok)
      throw new AppError('upstream', `the provider did not answer; nothing was saved: ${proof.error}`);
    const exists = this.store.current.models.providers[body.id] !== undefined;
    if (exists)
      await this.models.update(body.id, {
        base_url: body.base_url,
        model: body.model,
        api_key: body.api_key,
      });
    else await this.models.create(body);
    await this.store.update((editor) => editor.set(['models', 'default_provider'], body.id));
    return { id: body.id, reply: proof.reply, latencyMs: proof.latencyMs };
  }

  /** Adds Telegram account bot1 (dm_policy pairing) once the token was accepted by the Bot API. */
  async addTelegram(body: SetupTelegramBody): Promise<{ accountId: string; latencyMs: number }> {
    const check = await checkTelegram(body.token, body.api_base);
    if (!check.ok) throw new AppError('upstream', `${check.error}; the account was not saved`);
    await this.store.update((editor) => {
      editor.set(['channels', 'telegram', 'enabled'], true);
      editor.set(['channels', 'telegram', 'accounts', 'bot1'], {
        app_secret: body.token,
        dm_policy: 'pairing',
        ...(body.api_base ? { api_base: body.api_base } : {}),
      });
    });
    return { accountId: 'bot1', latencyMs: check.latencyMs };
  }
}
