// POST /channels/{platform}/send, /send-image and /send-file: outbound messages through a channel
// account. An unknown platform is a 404, a platform without an adapter yet a 501; the account is the
// given one (404 unknown, 409 disabled) or the platform's first enabled one (409 if none). Failures
// of the platform are 502s whose message never contains a credential.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { ConfigStore } from '../../config/config-store.ts';
import type { Platform } from '../../config/schema.ts';
import { AppError, conflict, invalid, notFound } from '../../core/errors.ts';
import { own } from '../../core/ids.ts';
import type { ChannelManager } from '../../channels/manager.ts';
import { resolveOutboundFile, type WorkspaceAccess } from '../../channels/files.ts';
import type { ChannelAccount, ChannelAdapter, OutboundMedia } from '../../channels/types.ts';
import { idParam } from '../../http/params.ts';
import { platformOf } from './channels.service.ts';

const chatId = z
  .union([z.string().trim().min(1).max(200), z.int()])
  .transform((value) => String(value))
  .describe('chat to send to (a string or an integer id)');
const reference = z.string().trim().min(1).max(1000);
const sendBody = z.strictObject({
  chatId,
  message: z
    .string()
    .min(1)
    .max(64 * 1024),
  accountId: idParam.optional(),
});
const imageBody = z.strictObject({
  chatId,
  imagePath: reference.optional().describe('"<agentId>:<path inside that agent\'s workspace>"'),
  imageKey: reference.optional().describe("a file id the platform already holds (Telegram's file_id)"),
  accountId: idParam.optional(),
});
const fileBody = z.strictObject({
  chatId,
  filePath: reference.optional().describe('"<agentId>:<path inside that agent\'s workspace>"'),
  fileName: z.string().min(1).max(255).optional(),
  fileKey: reference.optional().describe("a file id the platform already holds (Telegram's file_id)"),
  accountId: idParam.optional(),
});
const platformParams = z.object({ platform: z.string().max(64) });

interface Target {
  adapter: ChannelAdapter;
  account: ChannelAccount;
}

export function registerSendRoutes(
  app: FastifyInstance,
  store: ConfigStore,
  channels: ChannelManager,
  files: WorkspaceAccess,
): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['channels'];

  const target = (name: string, accountId: string | undefined): Target => {
    const platform: Platform = platformOf(name);
    const adapter = channels.adapterFor(platform);
    if (!adapter) {
      throw new AppError(
        'not-implemented',
        `sending through platform "${platform}" is not implemented yet; supported: telegram`,
      );
    }
    const section = store.current.channels[platform];
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
  };

  const media = async (
    field: string,
    path: string | undefined,
    key: string | undefined,
    maxBytes: number,
    fileName?: string,
  ): Promise<OutboundMedia> => {
    if ((path === undefined) === (key === undefined)) {
      throw invalid(`give exactly one of ${field}Path and ${field}Key`);
    }
    if (key !== undefined) return { kind: 'reference', id: key };
    const file = await resolveOutboundFile(files, `${field}Path`, path ?? '', maxBytes, fileName);
    return { kind: 'upload', data: file.data, fileName: file.fileName };
  };

  api.post(
    '/api/v1/channels/:platform/send',
    { schema: { tags, params: platformParams, body: sendBody } },
    async (request) => {
      const { adapter, account } = target(request.params.platform, request.body.accountId);
      const sent = await adapter.sendText(account, request.body.chatId, request.body.message);
      return { success: true, messageId: sent.messageId };
    },
  );
  api.post(
    '/api/v1/channels/:platform/send-image',
    { schema: { tags, params: platformParams, body: imageBody } },
    async (request) => {
      const { adapter, account } = target(request.params.platform, request.body.accountId);
      const image = await media(
        'image',
        request.body.imagePath,
        request.body.imageKey,
        adapter.maxUploadBytes.image,
      );
      const sent = await adapter.sendImage(account, request.body.chatId, image);
      return { success: true, messageId: sent.messageId };
    },
  );
  api.post(
    '/api/v1/channels/:platform/send-file',
    { schema: { tags, params: platformParams, body: fileBody } },
    async (request) => {
      const { adapter, account } = target(request.params.platform, request.body.accountId);
      const file = await media(
        'file',
        request.body.filePath,
        request.body.fileKey,
        adapter.maxUploadBytes.file,
        request.body.fileName,
      );
      const sent = await adapter.sendFile(account, request.body.chatId, file);
      return { success: true, messageId: sent.messageId };
    },
  );
}
