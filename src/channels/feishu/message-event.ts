// The im.message.receive_v1 event (a user sent the bot a message), the same over the long
// connection and the webhook, reduced to an InboundMessage: text as typed, rich text (post) as
// plain text with its links and mentions written out, the keys of the images it carries (the
// adapter downloads them), and whether the bot itself is mentioned.
import { z } from 'zod';
import type { Platform } from '../../config/schema.ts';
import type { InboundMessage } from '../types.ts';

/** Images of one message passed to the model; more are dropped. */
export const MAX_IMAGES_PER_MESSAGE = 4;
/** The text of a message that is only images (an empty text starts no turn). */
export const IMAGE_ONLY_TEXT = '[image]';

const userIds = z.object({
  open_id: z.string().optional(),
  user_id: z.string().optional(),
  union_id: z.string().optional(),
});

const mention = z.object({
  key: z.string(),
  id: userIds.optional(),
  name: z.string().optional(),
});

/** The `event` part of im.message.receive_v1. */
export const messageReceivedSchema = z.object({
  sender: z.object({
    sender_id: userIds.optional(),
    sender_type: z.string().optional(),
  }),
  message: z.object({
    message_id: z.string().min(1),
    chat_id: z.string().min(1),
    chat_type: z.string(),
    message_type: z.string(),
    content: z.string(),
    thread_id: z.string().optional(),
    mentions: z.array(mention).nullish(),
  }),
});
export type MessageReceived = z.infer<typeof messageReceivedSchema>;
type Mention = z.infer<typeof mention>;

const postElement = z.looseObject({
  tag: z.string(),
  text: z.string().optional(),
  href: z.string().optional(),
  user_id: z.string().optional(),
  user_name: z.string().optional(),
  image_key: z.string().optional(),
  emoji_type: z.string().optional(),
  language: z.string().optional(),
});
const postBody = z.object({
  title: z.string().optional(),
  content: z.array(z.array(postElement)).optional(),
});

export interface ParsedMessage {
  message: InboundMessage;
  /** image_keys of the images in the message, to download with the message's id. */
  imageKeys: string[];
}

/** How mentions are written: the bot's own is dropped (it is whom the text is for), others as @name. */
class MentionRenderer {
  private readonly byKey = new Map<string, Mention>();

  constructor(
    mentions: readonly Mention[],
    private readonly botOpenId: string | undefined,
  ) {
    for (const entry of mentions) this.byKey.set(entry.key, entry);
  }

  isBot(entry: Mention | undefined): boolean {
    return this.botOpenId !== undefined && entry?.id?.open_id === this.botOpenId;
  }

  /** Replaces the placeholders (@_user_1, @_all) in a text message. */
  text(text: string): string {
    return text.replace(/@_[A-Za-z0-9_]+( ?)/g, (found: string, space: string) => {
      const key = space ? found.slice(0, -1) : found;
      if (key === '@_all') return `@all${space}`;
      const entry = this.byKey.get(key);
      if (!entry) return found;
      return this.isBot(entry) ? '' : `@${entry.name ?? 'user'}${space}`;
    });
  }

  /** An `at` element of a post. */
  at(userId: string | undefined, userName: string | undefined): string {
    if (userId === 'all' || userId === '@_all') return '@all';
    const entry = userId !== undefined ? this.byKey.get(userId) : undefined;
    if (this.isBot(entry)) return '';
    if (entry === undefined && this.botOpenId !== undefined && userId === this.botOpenId) return '';
    return `@${entry?.name ?? userName ?? 'user'}`;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** A post as sent in events ({title, content}) or localized ({zh_cn: {title, content}, ...}). */
function postOf(content: unknown): z.infer<typeof postBody> | undefined {
  const direct = postBody.safeParse(content);
  if (direct.success && (direct.data.content !== undefined || direct.data.title !== undefined))
    return direct.data;
  if (typeof content === 'object' && content !== null) {
    for (const value of Object.values(content)) {
      const localized = postBody.safeParse(value);
      if (localized.success && localized.data.content !== undefined) return localized.data;
    }
  }
  return undefined;
}

function renderPost(post: z.infer<typeof postBody>, mentions: MentionRenderer, imageKeys: string[]): string {
  const lines: string[] = [];
  if (post.title) lines.push(post.title);
  for (const paragraph of post.content ?? []) {
    let line = '';
    for (const element of paragraph) {
      switch (element.tag) {
        case 'text':
        case 'md':
          line += element.text ?? '';
          break;
        case 'a':
          line +=
            element.href && element.href !== element.text
              ? `[${element.text ?? element.href}](${element.href})`
              : (element.text ?? '');
          break;
        case 'at':
          line += mentions.at(element.user_id, element.user_name);
          break;
        case 'img':
          if (element.image_key) imageKeys.push(element.image_key);
          break;
        case 'emotion':
          if (element.emoji_type) line += `:${element.emoji_type}:`;
          break;
        case 'code_block':
          line += `\n\`\`\`${element.language?.toLowerCase() ?? ''}\n${element.text ?? ''}\n\`\`\`\n`;
          break;
        case 'hr':
          line += '\n---\n';
          break;
        case 'media':
          line += '[video]';
          break;
        default:
          if (element.text) line += element.text;
      }
    }
    lines.push(line);
  }
  return lines.join('\n');
}

/**
 * The InboundMessage of one received message, or undefined for what the bot does not answer
 * (messages of other bots, kinds other than text, post and image, malformed events).
 * `botOpenId` undefined means the bot's identity is unknown: a group message then counts as not
 * mentioning it.
 */
export function parseMessageEvent(
  platform: Platform,
  accountId: string,
  event: unknown,
  botOpenId: string | undefined,
): ParsedMessage | undefined {
  const parsed = messageReceivedSchema.safeParse(event);
  if (!parsed.success) return undefined;
  const { sender, message } = parsed.data;
  if (sender.sender_type !== undefined && sender.sender_type !== 'user') return undefined;
  const senderId = sender.sender_id?.open_id ?? sender.sender_id?.user_id ?? sender.sender_id?.union_id;
  if (!senderId) return undefined;
  const mentionList = message.mentions ?? [];
  const mentions = new MentionRenderer(mentionList, botOpenId);
  const content = parseJson(message.content);
  const imageKeys: string[] = [];
  let text: string;
  switch (message.message_type) {
    case 'text': {
      const body = z.object({ text: z.string() }).safeParse(content);
      if (!body.success) return undefined;
      text = mentions.text(body.data.text);
      break;
    }
    case 'post': {
      const post = postOf(content);
      if (!post) return undefined;
      text = renderPost(post, mentions, imageKeys);
      break;
    }
    case 'image': {
      const body = z.object({ image_key: z.string().min(1) }).safeParse(content);
      if (!body.success) return undefined;
      imageKeys.push(body.data.image_key);
      text = '';
      break;
    }
    default:
      return undefined;
  }
  text = text.trim();
  if (text === '' && imageKeys.length > 0) text = IMAGE_ONLY_TEXT;
  const chatType = message.chat_type === 'p2p' ? 'dm' : 'group';
  const mentioned =
    botOpenId !== undefined
      ? mentionList.some((entry) => mentions.isBot(entry))
      : chatType === 'group'
        ? false
        : undefined;
  return {
    message: {
      platform,
      accountId,
      chatId: message.chat_id,
      chatType,
      senderId,
      text,
      messageId: message.message_id,
      ...(message.thread_id ? { threadId: message.thread_id } : {}),
      ...(mentioned !== undefined ? { mentioned } : {}),
    },
    imageKeys: imageKeys.slice(0, MAX_IMAGES_PER_MESSAGE),
  };
}

/** Feishu's receive_id_type of an id, from its prefix. */
export function receiveIdTypeOf(id: string): 'chat_id' | 'open_id' | 'union_id' | 'email' | 'user_id' {
  if (id.startsWith('oc_')) return 'chat_id';
  if (id.startsWith('ou_')) return 'open_id';
  if (id.startsWith('on_')) return 'union_id';
  if (id.includes('@')) return 'email';
  return 'user_id';
}
