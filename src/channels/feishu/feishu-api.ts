// The calls of the Feishu / Lark open API that both Feishu adapters make: bot info, message send /
// reply / card patch, image and file upload, and the download of a received message's resources.
// The token, retries, size caps and error texts are the transport's (feishu-http.ts).
import { randomUUID } from 'node:crypto';
import { AppError } from '../../core/errors.ts';
import type { ChannelAccount } from '../types.ts';
import { FeishuHttp, type FeishuCredentials, type FeishuHttpOptions } from './feishu-http.ts';
import { PlatformError } from '../platform-http.ts';
import type { FeishuAccount } from './account.ts';

export const FEISHU_API_BASE = 'https://open.feishu.cn';

export function credentialsOf(account: ChannelAccount<FeishuAccount>): FeishuCredentials {
  const { app_id: appId, app_secret: appSecret, api_base: apiBase } = account.config;
  if (!appId || !appSecret) {
    throw new AppError('conflict', `${account.platform} account "${account.id}" has no app_id or app_secret`);
  }
  return { apiBase: (apiBase ?? FEISHU_API_BASE).replace(/\/+$/, ''), appId, appSecret };
}

/** A message as the send and reply calls take it: content is the JSON text of msg_type's content. */
export interface OutgoingMessage {
  msgType: 'text' | 'post' | 'image' | 'file' | 'interactive';
  content: string;
  /** Names the send (send-key.ts) for Feishu's own dedupe; a fresh one when absent. */
  uuid?: string;
}

function stringField(record: Record<string, unknown> | undefined, field: string): string {
  const value = record?.[field];
  return typeof value === 'string' ? value : '';
}

export class FeishuApi {
  private readonly http: FeishuHttp;

  constructor(options: FeishuHttpOptions = {}) {
    this.http = new FeishuHttp(options);
  }

  /** The bot's own identity: its open_id is what group mentions are compared with. */
  async botInfo(
    credentials: FeishuCredentials,
    signal?: AbortSignal,
  ): Promise<{ openId: string; name: string }> {
    const answer = await this.http.call(credentials, 'bot info', '/open-apis/bot/v3/info', {
      method: 'GET',
      signal,
    });
    const bot = (typeof answer['bot'] === 'object' && answer['bot'] !== null ? answer['bot'] : {}) as Record<
      string,
      unknown
    >;
    const openId = stringField(bot, 'open_id');
    if (openId === '') throw new PlatformError('feishu bot info: the answer carries no open_id');
    return { openId, name: stringField(bot, 'app_name') };
  }

  /** Sends a message to a chat or user; `receiveIdType` says what kind of id `receiveId` is. */
  async sendMessage(
    credentials: FeishuCredentials,
    receiveIdType: string,
    receiveId: string,
    message: OutgoingMessage,
    signal?: AbortSignal,
  ): Promise<string> {
    const answer = await this.http.call(credentials, 'send message', '/open-apis/im/v1/messages', {
      query: { receive_id_type: receiveIdType },
      // The uuid makes Feishu drop a repeat of this very send (our retry after a token refresh).
      json: {
        receive_id: receiveId,
        msg_type: message.msgType,
        content: message.content,
        uuid: message.uuid ?? randomUUID(),
      },
      signal,
    });
    return stringField(answer.data, 'message_id');
  }

  /** Replies to a message, in its thread when `inThread`. */
  async replyMessage(
    credentials: FeishuCredentials,
    messageId: string,
    message: OutgoingMessage,
    inThread: boolean,
    signal?: AbortSignal,
  ): Promise<string> {
    const answer = await this.http.call(
      credentials,
      'reply message',
      `/open-apis/im/v1/messages/${encodeURIComponent(messageId)}/reply`,
      {
        json: {
          msg_type: message.msgType,
          content: message.content,
          reply_in_thread: inThread,
          uuid: message.uuid ?? randomUUID(),
        },
        signal,
      },
    );
    return stringField(answer.data, 'message_id');
  }

  /** Replaces the content of a card the bot sent (a shared card: update_multi). */
  async patchCard(
    credentials: FeishuCredentials,
    messageId: string,
    content: string,
    signal?: AbortSignal,
  ): Promise<void> {
    await this.http.call(
      credentials,
      'update card',
      `/open-apis/im/v1/messages/${encodeURIComponent(messageId)}`,
      {
        method: 'PATCH',
        json: { content },
        signal,
      },
    );
  }

  async uploadImage(credentials: FeishuCredentials, data: Blob, fileName: string): Promise<string> {
    const answer = await this.http.call(credentials, 'upload image', '/open-apis/im/v1/images', {
      form: () => {
        const form = new FormData();
        form.set('image_type', 'message');
        form.set('image', data, fileName);
        return form;
      },
    });
    const key = stringField(answer.data, 'image_key');
    if (key === '') throw new PlatformError('feishu upload image: the answer carries no image_key');
    return key;
  }

  async uploadFile(credentials: FeishuCredentials, data: Blob, fileName: string): Promise<string> {
    const answer = await this.http.call(credentials, 'upload file', '/open-apis/im/v1/files', {
      form: () => {
        const form = new FormData();
        form.set('file_type', fileTypeOf(fileName));
        form.set('file_name', fileName);
        form.set('file', data, fileName);
        return form;
      },
    });
    const key = stringField(answer.data, 'file_key');
    if (key === '') throw new PlatformError('feishu upload file: the answer carries no file_key');
    return key;
  }

  /** Downloads a file of a message the bot received (an image a user sent), at most `maxBytes`. */
  async downloadResource(
    credentials: FeishuCredentials,
    messageId: string,
    fileKey: string,
    type: 'image' | 'file',
    maxBytes: number,
    signal?: AbortSignal,
  ): Promise<{ bytes: Buffer; contentType: string }> {
    const path = `/open-apis/im/v1/messages/${encodeURIComponent(messageId)}/resources/${encodeURIComponent(fileKey)}`;
    const { answer, response } = await this.http.send(credentials, 'download resource', path, {
      method: 'GET',
      query: { type },
      signal,
      maxBytes,
    });
    if (answer) throw new PlatformError('feishu download resource: the API sent no file');
    return { bytes: response.body, contentType: response.headers.get('content-type') ?? '' };
  }
}

/** The upload's file_type: the kinds Feishu previews, else a plain stream. */
export function fileTypeOf(fileName: string): string {
  const extension = /\.([a-z0-9]+)$/i.exec(fileName)?.[1]?.toLowerCase() ?? '';
  if (extension === 'pdf') return 'pdf';
  if (extension === 'doc' || extension === 'docx') return 'doc';
  if (extension === 'xls' || extension === 'xlsx') return 'xls';
  if (extension === 'ppt' || extension === 'pptx') return 'ppt';
  return 'stream';
}
