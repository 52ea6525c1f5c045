// A Slack event (from Socket Mode or the Events API) reduced to an InboundMessage. Handled: DMs
// (`message` in an `im`), mentions in channels (`app_mention`), and other channel messages (when the
// app subscribes to them; they count as mentioning the bot only when they do). Ignored: anything a
// bot posted (this one included, so two bots never talk in a loop), edits, deletions and other
// subtypes. Threads: a reply goes to the message's thread; a channel message outside one starts a
// thread under it, so each thread is one conversation (one session).
import type { InboundMessage } from '../types.ts';

export interface SlackFileRef {
  name: string;
  mimetype: string;
  /** url_private_download (or url_private): fetched with the bot token. */
  url: string;
  size: number;
}

export interface ParsedMessage {
  message: InboundMessage;
  /** Files the user attached, still to be fetched. */
  files: SlackFileRef[];
}

/** Subtypes that are a user's message; every other subtype (edits, joins, bot posts) is ignored. */
const USER_SUBTYPES = new Set([undefined, 'file_share', 'thread_broadcast']);

const str = (value: unknown): string | undefined =>
  typeof value === 'string' && value !== '' ? value : undefined;

function filesOf(value: unknown): SlackFileRef[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw: unknown) => {
    const file = (raw ?? {}) as Record<string, unknown>;
    const url = str(file['url_private_download']) ?? str(file['url_private']);
    if (!url) return [];
    return [
      {
        name: str(file['name']) ?? str(file['title']) ?? 'file',
        mimetype: str(file['mimetype']) ?? 'application/octet-stream',
        url,
        size: typeof file['size'] === 'number' ? file['size'] : 0,
      },
    ];
  });
}

/** Removes mentions of the bot (<@U123> or <@U123|name>); without its id, a leading mention. */
export function stripMention(text: string, botUserId: string | undefined): string {
  const stripped = botUserId
    ? text.replace(new RegExp(`<@${botUserId.replace(/[^A-Za-z0-9]/g, '')}(?:\\|[^>]*)?>`, 'g'), '')
    : text.replace(/^\s*<@[A-Z0-9]+(?:\|[^>]*)?>/, '');
  return stripped.replace(/[ \t]{2,}/g, ' ').trim();
}

/** Slack escapes &, < and > in message text; the model reads them plain. */
export function unescapeText(text: string): string {
  return text.replaceAll('&lt;', '<').replaceAll('&gt;', '>').replaceAll('&amp;', '&');
}

export function parseSlackEvent(
  raw: unknown,
  accountId: string,
  botUserId: string | undefined,
): ParsedMessage | undefined {
  const event = (raw ?? {}) as Record<string, unknown>;
  const type = event['type'];
  if (type !== 'message' && type !== 'app_mention') return undefined;
  if (!USER_SUBTYPES.has(str(event['subtype']))) return undefined;
  if (event['bot_id'] !== undefined || event['bot_profile'] !== undefined) return undefined;
  const channel = str(event['channel']);
  const user = str(event['user']);
  const ts = str(event['ts']);
  if (!channel || !user || !ts || user === botUserId) return undefined;
  const channelType = str(event['channel_type']);
  const dm = type === 'message' && (channelType ? channelType === 'im' : channel.startsWith('D'));
  const text = typeof event['text'] === 'string' ? event['text'] : '';
  const mentioned = type === 'app_mention' || (botUserId !== undefined && text.includes(`<@${botUserId}`));
  const threadTs = str(event['thread_ts']) ?? (dm ? undefined : ts);
  return {
    message: {
      platform: 'slack',
      accountId,
      chatId: channel,
      chatType: dm ? 'dm' : 'group',
      senderId: user,
      text: unescapeText(stripMention(text, botUserId)),
      messageId: ts,
      ...(threadTs ? { threadId: threadTs } : {}),
      ...(dm ? {} : { mentioned }),
    },
    files: filesOf(event['files']),
  };
}
