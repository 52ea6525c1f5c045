import { z } from 'zod';
import { sleep } from '../../core/async.ts';
import type { NodeDefinition } from '../types.ts';

const configSchema = z.object({
  periodInSeconds: z
    .number()
    .min(0)
    .default(60)
    .meta({ label: 'Delay (s)', description: 'Seconds to wait.' }),
  delayMs: z
    .number()
    .int()
    .min(0)
    .optional()
    .meta({ label: 'Delay (ms)', description: 'Milliseconds to wait; takes precedence over the seconds.' }),
  maxPendingMsgs: z
    .number()
    .int()
    .min(1)
    .default(1000)
    .meta({ label: 'Max waiting', description: 'Messages allowed to wait at once; more fail.' }),
});

export const delayNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'delay',
  label: 'Delay',
  description: 'Waits, then passes the message on; stops waiting when the run is cancelled.',
  category: 'action',
  relations: ['Success', 'Failure'],
  configSchema,
  create(config) {
    const waitMs = config.delayMs ?? config.periodInSeconds * 1000;
    let pending = 0;
    return {
      async process(message, context) {
        if (pending >= config.maxPendingMsgs) {
          throw new Error(`too many messages waiting (limit ${config.maxPendingMsgs})`);
        }
        pending += 1;
        try {
          await sleep(waitMs, context.signal);
        } finally {
          pending -= 1;
        }
        return [{ relation: 'Success', message }];
      },
    };
  },
};
