// Shapes of the messages resource: outbound text, images and files through a channel account.
import { z } from 'zod';
import { idParam } from '../../http/params.ts';

const chatId = z
  .union([z.string().trim().min(1).max(200), z.int()])
  .transform((value) => String(value))
  .describe('chat to send to (a string or an integer id)');
const reference = z.string().trim().min(1).max(1000);

export const textBody = z.strictObject({
  chatId,
  message: z
    .string()
    .min(1)
    .max(64 * 1024),
  accountId: idParam.optional(),
});
export const imageBody = z.strictObject({
  chatId,
  imagePath: reference.optional().describe('"<agentId>:<path inside that agent\'s workspace>"'),
  imageKey: reference.optional().describe("a file id the platform already holds (Telegram's file_id)"),
  accountId: idParam.optional(),
});
export const fileBody = z.strictObject({
  chatId,
  filePath: reference.optional().describe('"<agentId>:<path inside that agent\'s workspace>"'),
  fileName: z.string().min(1).max(255).optional(),
  fileKey: reference.optional().describe("a file id the platform already holds (Telegram's file_id)"),
  accountId: idParam.optional(),
});
export const sentAnswer = z.object({ success: z.literal(true), messageId: z.string() });

export type TextBody = z.infer<typeof textBody>;
export type ImageBody = z.infer<typeof imageBody>;
export type FileBody = z.infer<typeof fileBody>;
export type SentAnswer = z.infer<typeof sentAnswer>;
