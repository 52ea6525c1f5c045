// Shapes of the webhook endpoint: platforms call it, so only the path is ours to check.
import { z } from 'zod';
import { idParam } from '../../http/params.ts';

export const webhookParams = z.object({ platform: z.string().max(64), accountId: idParam });
