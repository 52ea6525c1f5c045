// Outbound messages through a channel account. An unknown platform is a 404, a platform without an
// adapter yet a 501; the account is the given one (404 unknown, 409 disabled) or the platform's
// first enabled one (409 if none). Failures of the platform are 502s whose message never contains
// a credential. Local files are only ever read from an agent's workspace (channels/files.ts).
import type { ConfigStore } from '../../config/config-store.ts';
import { AppError, conflict, invalid, notFound } from '../../core/errors.ts';
import { own } from '../../core/id-schema.ts';
import type { ChannelManager } from '../../channels/manager.ts';
import { resolveOutboundFile, type WorkspaceAccess } from '../../channels/files.ts';
import type { ChannelAccount, ChannelAdapter, OutboundMedia } from '../../channels/types.ts';
import { platformOf } from '../channels/channels.service.ts';
import { withSendRetry } from '../../channels/send-retry.ts';
import type { FileBody, ImageBody, SentAnswer, TextBody } from './messages.schema.ts';

interface Target {
  adapter: ChannelAdapter;
  account: ChannelAccount;
}

export class MessagesService {
  constructor(
    private readonly store: ConfigStore,
    private readonly channels: ChannelManager,
    private readonly files: WorkspaceAccess,
  ) {}

  async sendText(platform: string, body: TextBody): Promise<SentAnswer> {
    const { adapter, account } = this.target(platform, body.accountId);
    const sent = await withSendRetry(() => adapter.sendText(account, body.chatId, body.message));
    return { success: true, messageId: sent.messageId };
  }

  async sendImage(platform: string, body: ImageBody): Promise<SentAnswer> {
    const { adapter, account } = this.target(platform, body.accountId);
    const image = await this.media('image', body.imagePath, body.imageKey, adapter.maxUploadBytes.image);
    const sent = await withSendRetry(() => adapter.sendImage(account, body.chatId, image));
    return { success: true, messageId: sent.messageId };
  }

  async sendFile(platform: string, body: FileBody): Promise<SentAnswer> {
    const { adapter, account } = this.target(platform, body.accountId);
    const file = await this.media(
      'file',
      body.filePath,
      body.fileKey,
      adapter.maxUploadBytes.file,
      body.fileName,
    );
    const sent = await withSendRetry(() => adapter.sendFile(account, body.chatId, file));
    return { success: true, messageId: sent.messageId };
  }

  private target(name: string, accountId: string | undefined): Target {
    const platform = platformOf(name);
    const adapter = this.channels.adapterFor(platform);
    if (!adapter) {
      throw new AppError('not-implemented', `sending through platform "${platform}" is not supported`);
    }
    const section = this.store.current.channels[platform];
    let id = accountId;
    if (id === undefined) {
      id = section?.enabled
        ? Object.entries(section.accounts).find(([, account]) => account.enabled)?.[0]
        : undefined;
      if (id === undefined) throw conflict(`platform "${platform}" has no enabled account`);
    }
    const config = own(section?.accounts, id);
    if (!config) throw notFound(`account "${id}" not found on platform "${platform}"`);
    if (!section?.enabled) throw conflict(`platform "${platform}" is disabled`);
    if (!config.enabled) throw conflict(`account "${id}" on platform "${platform}" is disabled`);
    if (!config.app_secret) throw conflict(`account "${id}" on platform "${platform}" has no app_secret`);
    return { adapter, account: { platform, id, config } };
  }

  /** Exactly one of a workspace file (`<field>Path`) and a platform file id (`<field>Key`). */
  private async media(
    field: string,
    path: string | undefined,
    key: string | undefined,
    maxBytes: number,
    fileName?: string,
  ): Promise<OutboundMedia> {
    if ((path === undefined) === (key === undefined)) {
      throw invalid(`give exactly one of ${field}Path and ${field}Key`);
    }
    if (key !== undefined) return { kind: 'reference', id: key };
    const file = await resolveOutboundFile(this.files, `${field}Path`, path ?? '', maxBytes, fileName);
    return { kind: 'upload', data: file.data, fileName: file.fileName };
  }
}
