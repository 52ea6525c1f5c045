import { z } from 'zod';
import { sleep } from '../../core/async.ts';
import { exprEnv, exprScope } from '../expr-env.ts';
import type { ExprScope } from '../expr-env.ts';
import { compileExprTemplate } from '../expr-template.ts';
import type { ExprTemplate } from '../expr-template.ts';
import type { NodeDefinition, RuleMessage } from '../types.ts';

/** Metadata key whose milliseconds are taken off the wait (RuleGo's KeyDelayOffsetMs). */
const OFFSET_KEY = '_delayOffsetMs';
const INTEGER = /^-?\d+$/;

const configSchema = z.object({
  delayMs: z
    .union([
      z.number(),
      z.string().refine((text) => text.trim() === '' || INTEGER.test(text.trim()) || text.includes('${'), {
        message: 'must be a whole number or a ${...} template',
      }),
    ])
    .optional()
    .meta({
      label: 'Delay (ms)',
      description:
        'Milliseconds to wait: a number, a numeric string or a template such as ${metadata.delay}.',
    }),
  periodInSeconds: z.number().min(0).default(0).meta({
    label: 'Delay (s)',
    description: 'Seconds to wait when delayMs is not set (deprecated in RuleGo).',
  }),
  periodInSecondsPattern: z.string().default('').meta({
    label: 'Delay (s) template',
    description: 'Seconds to wait as a template, when delayMs is not set (deprecated in RuleGo).',
  }),
  maxPendingMsgs: z.number().int().default(1000).meta({
    label: 'Max waiting',
    description: 'Messages allowed to wait at once (0 or less: 1000); more fail.',
  }),
});

type Config = z.infer<typeof configSchema>;

export const delayNode: NodeDefinition<Config> = {
  type: 'delay',
  label: 'Delay',
  description:
    'Waits, then passes the message on; metadata._delayOffsetMs shortens the wait; stops when the run is cancelled.',
  category: 'action',
  relations: ['Success', 'Failure'],
  configSchema,
  create(config, { nodeId, vars, services }) {
    const limit = config.maxPendingMsgs > 0 ? config.maxPendingMsgs : 1000;
    const waitFor = compileWait(config, `node "${nodeId}"`, exprScope(vars, services));
    let pending = 0;
    return {
      async process(message, context) {
        if (pending >= limit) throw new Error(`too many messages waiting (limit ${limit})`);
        const waitMs = waitFor(message) - offset(message);
        if (waitMs <= 0) return [{ relation: 'Success', message }];
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

/** The wait of one message in ms: a fixed number, or a template read with the message (as RuleGo). */
function compileWait(config: Config, where: string, scope: ExprScope): (message: RuleMessage) => number {
  const { delayMs } = config;
  const text = typeof delayMs === 'number' ? String(delayMs) : (delayMs ?? '').trim();
  if (text === '') {
    if (config.periodInSecondsPattern.trim() === '') return () => config.periodInSeconds * 1000;
    const seconds = compileExprTemplate(config.periodInSecondsPattern, where);
    return (message) => readInteger(seconds, message, scope) * 1000;
  }
  if (typeof delayMs === 'number' || INTEGER.test(text)) {
    const fixed = Number(text);
    if (!Number.isFinite(fixed)) throw new Error(`${where}: delayMs must be a number`);
    return () => fixed;
  }
  const template = compileExprTemplate(text, where);
  return (message) => readInteger(template, message, scope);
}

function readInteger(template: ExprTemplate, message: RuleMessage, scope: ExprScope): number {
  // RuleGo's env for this template also has each metadata key at the top level.
  const text = template.render({ ...exprEnv(message, scope), ...message.metadata }).trim();
  if (!INTEGER.test(text)) throw new Error(`delay "${text}" from the template is not a whole number`);
  return Number(text);
}

function offset(message: RuleMessage): number {
  const value = message.metadata[OFFSET_KEY]?.trim();
  if (value === undefined || value === '') return 0;
  if (!INTEGER.test(value)) throw new Error(`${OFFSET_KEY} "${value}" is not a whole number`);
  return Number(value);
}
