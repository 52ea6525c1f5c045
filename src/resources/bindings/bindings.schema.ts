// Shapes of the bindings resource. The config file stores bindings as `agent_id` and
// `match.account_id` (config/schema.ts); the API uses the contract's names, agentId and accountId.
import { z } from 'zod';
import { PLATFORMS } from '../../config/schema.ts';
import { idParam } from '../../http/params.ts';

export const bindingSchema = z.strictObject({
  agentId: idParam,
  match: z
    .strictObject({
      default: z.boolean().optional(),
      channel: z.enum(PLATFORMS).optional(),
      accountId: idParam.optional(),
      peer: z.string().min(1).max(200).optional(),
    })
    .default({}),
});
export const bindingsBody = z.strictObject({ bindings: z.array(bindingSchema).max(1000) });

export type Binding = z.infer<typeof bindingSchema>;
