// A robot message callback (topic /v1.0/im/bot/messages/get) reduced to what routing needs. Text,
// rich text (text and pictures), pictures and voice (its recognised text) are taken; files and videos
// are not. conversationType 1 is a DM, 2 a group; in a group the robot only receives messages that
// @ it, so they all mention it. The chat of a group is its openConversationId (cid...), the chat of
// a DM the sender's user id (staff id), as the robot send API addresses them.
import { z } from 'zod';
import type { InboundMessage } from '../types.ts';

/** What a reply to one message needs, kept in InboundMessage.replyContext. */
export interface DingTalkReplyContext {
  sessionWebhook?: string;
  /** When the sessionWebhook stops working, in ms since the epoch (as text). */
  sessionWebhookExpiredTime?: string;
  robotCode?: string;
  conversationId: string;
}

const robotMessageSchema = z.object({
  msgId: z.string().min(1),
  msgtype: z.string(),
  conversationId: z.string().min(1),
  conversationType: z.string(),
  senderId: z.string().optional(),
  senderStaffId: z.string().optional(),
  robotCode: z.string().optional(),
  sessionWebhook: z.string().optional(),
  sessionWebhookExpiredTime: z.union([z.number(), z.string()]).optional(),
  text: z.object({ content: z.string() }).optional(),
  content: z.unknown().optional(),
});

const pictureSchema = z.object({ downloadCode: z.string().min(1) });
const richTextSchema = z.object({
  richText: z.array(z.object({ text: z.string().optional(), downloadCode: z.string().optional() })),
});
const audioSchema = z.object({ recognition: z.string() });

export interface ParsedRobotMessage {
  message: InboundMessage;
  /** downloadCodes of the pictures in the message, in order. */
  pictures: string[];
}

function body(
  msgtype: string,
  text: string | undefined,
  content: unknown,
): { text: string; pictures: string[] } {
  switch (msgtype) {
    case 'text':
      return { text: text ?? '', pictures: [] };
    case 'picture': {
      const picture = pictureSchema.safeParse(content);
      return { text: '', pictures: picture.success ? [picture.data.downloadCode] : [] };
    }
    case 'richText': {
      const rich = richTextSchema.safeParse(content);
      if (!rich.success) return { text: '', pictures: [] };
      const lines = rich.data.richText.flatMap((part) => (part.text === undefined ? [] : [part.text]));
      const pictures = rich.data.richText.flatMap((part) =>
        part.text === undefined && part.downloadCode ? [part.downloadCode] : [],
      );
      return { text: lines.join('\n'), pictures };
    }
    case 'audio': {
      const audio = audioSchema.safeParse(content);
      return { text: audio.success ? audio.data.recognition : '', pictures: [] };
    }
    default:
      return { text: '', pictures: [] };
  }
}

/** Parses the callback's data; undefined for a message that is not for the agent. */
export function parseRobotMessage(accountId: string, data: unknown): ParsedRobotMessage | undefined {
  const parsed = robotMessageSchema.safeParse(data);
  if (!parsed.success) return undefined;
  const raw = parsed.data;
  const sender = raw.senderStaffId || raw.senderId;
  if (!sender) return undefined;
  const { text, pictures } = body(raw.msgtype, raw.text?.content, raw.content);
  if (text.trim() === '' && pictures.length === 0) return undefined;
  const group = raw.conversationType === '2';
  const context: DingTalkReplyContext = {
    conversationId: raw.conversationId,
    ...(raw.sessionWebhook ? { sessionWebhook: raw.sessionWebhook } : {}),
    ...(raw.sessionWebhookExpiredTime !== undefined
      ? { sessionWebhookExpiredTime: String(raw.sessionWebhookExpiredTime) }
      : {}),
    ...(raw.robotCode ? { robotCode: raw.robotCode } : {}),
  };
  return {
    message: {
      platform: 'dingtalk',
      accountId,
      chatId: group ? raw.conversationId : sender,
      chatType: group ? 'group' : 'dm',
      senderId: sender,
      // A group message starts with a space where the @mention was.
      text: text.trim(),
      messageId: raw.msgId,
      ...(group ? { mentioned: true } : {}),
      replyContext: { ...context },
    },
    pictures,
  };
}

/** The reply context of a message this adapter received (undefined for any other). */
export function replyContextOf(message: InboundMessage): DingTalkReplyContext | undefined {
  const context = message.replyContext;
  if (!context?.['conversationId']) return undefined;
  return context as unknown as DingTalkReplyContext;
}
