// Messages the robot sends. A reply goes through the message's sessionWebhook while it is valid (no
// token needed, shown as the answer in that chat); otherwise, and for every message the API sends on
// its own, through the robot send API: POST /v1.0/robot/groupMessages/send for a group (chat id
// cid..., its openConversationId) and POST /v1.0/robot/oToMessages/batchSend for a user (chat id =
// the user id), each with a message template (msgKey) and its parameters as JSON text (msgParam).
import { splitText } from '../split-text.ts';
import type { InboundMessage, SendResult, ChannelAccount } from '../types.ts';
import { callJson, originsOf, type DingTalkOpenApi } from './open-api.ts';
import { PlatformError } from '../platform-http.ts';
import { replyContextOf } from './robot-message.ts';
import type { DingTalkAccount } from './account.ts';

/** Longest markdown text per message; longer answers are split. */
export const DINGTALK_TEXT_LIMIT = 4000;
/** A sessionWebhook this close to its expiry is not used any more. */
const WEBHOOK_MARGIN_MS = 60_000;

export type MessageTemplate =
  | { msgKey: 'sampleMarkdown'; msgParam: { title: string; text: string } }
  | { msgKey: 'sampleImageMsg'; msgParam: { photoURL: string } }
  | { msgKey: 'sampleFile'; msgParam: { mediaId: string; fileName: string; fileType: string } };

/** Group chats are addressed by openConversationId, which DingTalk starts with "cid". */
export function isGroupChat(chatId: string): boolean {
  return chatId.startsWith('cid');
}

/** The notification title of a markdown message: its first line, without markdown marks. */
export function markdownTitle(text: string): string {
  const line = text
    .split('\n')
    .map((part) => part.replace(/^[\s#>*\-+`]+/, '').trim())
    .find((part) => part !== '');
  return line ? Array.from(line).slice(0, 30).join('') : 'Reply';
}

export function markdown(text: string): MessageTemplate {
  return { msgKey: 'sampleMarkdown', msgParam: { title: markdownTitle(text), text } };
}

/** Sends one templated message to a group or a user through the robot send API. */
export async function sendToChat(
  api: DingTalkOpenApi,
  account: ChannelAccount<DingTalkAccount>,
  chatId: string,
  template: MessageTemplate,
  signal?: AbortSignal,
  robotCode = account.config.app_id ?? '',
): Promise<SendResult> {
  const common = { robotCode, msgKey: template.msgKey, msgParam: JSON.stringify(template.msgParam) };
  if (isGroupChat(chatId)) {
    const answer = await api.call(
      account,
      'dingtalk robot/groupMessages/send',
      'POST',
      '/v1.0/robot/groupMessages/send',
      { ...common, openConversationId: chatId },
      signal,
    );
    return { messageId: String(answer['processQueryKey'] ?? '') };
  }
  const what = 'dingtalk robot/oToMessages/batchSend';
  const answer = await api.call(
    account,
    what,
    'POST',
    '/v1.0/robot/oToMessages/batchSend',
    { ...common, userIds: [chatId] },
    signal,
  );
  const listed = (field: string): boolean =>
    Array.isArray(answer[field]) && (answer[field] as unknown[]).includes(chatId);
  if (listed('invalidStaffIdList')) throw new PlatformError(`${what}: "${chatId}" is not a user id`);
  if (listed('flowControlledStaffIdList')) {
    throw new PlatformError(`${what}: messages to "${chatId}" are throttled by DingTalk`);
  }
  return { messageId: String(answer['processQueryKey'] ?? '') };
}

/** The message's sessionWebhook, if it is DingTalk's (or the api_base's) and still valid. */
function usableWebhook(
  account: ChannelAccount<DingTalkAccount>,
  message: InboundMessage,
  now: number,
): URL | undefined {
  const context = replyContextOf(message);
  if (!context?.sessionWebhook) return undefined;
  const expires = Number(context.sessionWebhookExpiredTime);
  if (!Number.isFinite(expires) || now >= expires - WEBHOOK_MARGIN_MS) return undefined;
  let url: URL;
  try {
    url = new URL(context.sessionWebhook);
  } catch {
    return undefined;
  }
  // Only ever posted to the platform's own origin: the URL arrives inside a message.
  return url.origin === new URL(originsOf(account.config).oapi).origin ? url : undefined;
}

export interface ReplyOptions {
  signal?: AbortSignal | undefined;
  timeoutMs: number;
}

/**
 * Answers a message with markdown: through its sessionWebhook while valid, else (or when the
 * platform refuses the webhook) through the robot send API.
 */
export async function replyMarkdown(
  api: DingTalkOpenApi,
  account: ChannelAccount<DingTalkAccount>,
  message: InboundMessage,
  text: string,
  options: ReplyOptions,
): Promise<SendResult> {
  let webhook = usableWebhook(account, message, Date.now());
  const robotCode = replyContextOf(message)?.robotCode;
  let first: string | undefined;
  for (const piece of splitText(text, DINGTALK_TEXT_LIMIT)) {
    const template = markdown(piece);
    if (webhook) {
      try {
        await callJson(
          {
            what: 'dingtalk sessionWebhook',
            method: 'POST',
            url: webhook.href,
            body: { msgtype: 'markdown', markdown: template.msgParam },
            signal: options.signal,
            secrets: [webhook.searchParams.get('session') ?? undefined, ...api.secretsOf(account)],
          },
          options.timeoutMs,
        );
        first ??= '';
        continue;
      } catch (error) {
        // A webhook the platform refused (expired early) is given up; an unreachable one is an error.
        if (!(error instanceof PlatformError) || error.httpStatus === undefined) throw error;
        webhook = undefined;
      }
    }
    const sent = await sendToChat(api, account, message.chatId, template, options.signal, robotCode);
    first ??= sent.messageId;
  }
  return { messageId: first ?? '' };
}
