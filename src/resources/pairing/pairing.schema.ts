// Shapes of DM pairing requests (dm_policy pairing) as the admin sees them.
import { z } from 'zod';

export const pairingParams = z.object({
  code: z.string().regex(/^[A-Za-z0-9]{4,16}$/, 'must be the code the bot sent (letters and digits)'),
});
export const pairingView = z.object({
  code: z.string(),
  platform: z.string(),
  accountId: z.string(),
  senderId: z.string(),
  createdAt: z.string(),
  expiresAt: z.string(),
});
export const pairingList = z.object({ data: z.array(pairingView), total: z.int() });
export const pairingDecision = z.object({
  success: z.literal(true),
  message: z.string(),
  request: pairingView,
});

export type PairingView = z.infer<typeof pairingView>;
export type PairingDecision = z.infer<typeof pairingDecision>;
export type PairingList = z.infer<typeof pairingList>;
