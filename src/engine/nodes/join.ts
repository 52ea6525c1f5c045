import { z } from 'zod';
import { readData } from '../message.ts';
import type { NodeDefinition, RuleMessage } from '../types.ts';

const configSchema = z.object({
  timeout: z.number().min(0).optional().meta({
    label: 'Timeout (s)',
    description: "Seconds to wait for every branch; 0 waits without limit; unset uses the engine's default.",
  }),
  mergeToMap: z.boolean().default(false).meta({
    label: 'Merge to map',
    description: 'Merge the branch data objects into one object instead of an array.',
  }),
});

export const joinNode: NodeDefinition<z.infer<typeof configSchema>> = {
  type: 'join',
  label: 'Join',
  description:
    'Waits for every branch of the nearest split above it, then passes one message whose data holds them all.',
  category: 'flow',
  relations: ['Success', 'Failure'],
  configSchema,
  role: 'join',
  create(config) {
    const merge = (messages: RuleMessage[]): RuleMessage => mergeMessages(messages, config.mergeToMap);
    return {
      // The engine gathers the branches and calls `join.merge`; `process` serves a lone message.
      process: (message) => Promise.resolve([{ relation: 'Success', message: merge([message]) }]),
      join: { timeoutMs: config.timeout === undefined ? undefined : config.timeout * 1000, merge },
    };
  },
};

/** RuleGo's merge: data becomes an array of each branch's data (or one merged object); metadata is merged. */
export function mergeMessages(messages: RuleMessage[], toMap: boolean): RuleMessage {
  const first = messages[0];
  if (!first) throw new Error('join has no message to merge');
  const metadata: Record<string, string> = {};
  for (const message of messages) Object.assign(metadata, message.metadata);
  const values = messages.map(readData);
  const data = toMap
    ? Object.assign(
        {},
        ...values.filter((value) => typeof value === 'object' && value !== null && !Array.isArray(value)),
      )
    : values;
  return { ...first, dataType: 'JSON', data: JSON.stringify(data), metadata };
}
