import { z } from 'zod';
import { sleep } from '../../core/async.ts';
import { compileExprTemplate, renderAsString } from '../expr-template.ts';
import type { ExprTemplate } from '../expr-template.ts';
import type { NodeContext, NodeOutput, RuleMessage } from '../types.ts';
import { nodeEnvOf, type NodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';
import { flag, optionalText } from './config-fields.ts';

/** Metadata key whose milliseconds are taken off the wait (RuleGo's KeyDelayOffsetMs). */
const OFFSET_KEY = '_delayOffsetMs';
const INTEGER = /^[-+]?\d+$/;

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
  periodInSecondsPattern: optionalText(
    'Delay (s) template',
    'Seconds to wait as a template, when delayMs is not set (deprecated in RuleGo).',
  ),
  maxPendingMsgs: z.number().int().default(1000).meta({
    label: 'Max waiting',
    description: 'Messages allowed to wait at once (0 or less: 1000); more take Failure.',
  }),
  overwrite: flag(
    'Overwrite',
    'true: one message waits at a time; one arriving meanwhile takes its place and goes on when the wait ends.',
  ),
});

type Config = z.infer<typeof configSchema>;

/** What waits in overwrite mode: the message that goes on when the wait ends, the latest to arrive. */
interface Held {
  message: RuleMessage;
}

export const delayNode = defineNode(configSchema, {
  type: 'delay',
  label: 'Delay',
  description:
    'Waits, then passes the message on; metadata._delayOffsetMs shortens the wait; with overwrite, a message arriving during the wait replaces the waiting one.',
  category: 'action',
  relations: ['Success', 'Failure'],
  create(config, factory) {
    const limit = config.maxPendingMsgs > 0 ? config.maxPendingMsgs : 1000;
    const waitFor = compileWait(config, `node "${factory.nodeId}"`, nodeEnvOf(factory, true));
    let pending = 0;
    let held: Held | undefined;
    return {
      async process(message, context): Promise<NodeOutput[]> {
        if (held) {
          // As RuleGo's overwrite mode: the waiting message is replaced, and this one's branch ends here.
          held.message = message;
          return [];
        }
        if (pending >= limit) throw new Error('max limit of pending messages');
        const waitMs = waitFor(message, context) - offset(message);
        if (waitMs <= 0) return [{ relation: 'Success', message }];
        const slot: Held = { message };
        if (config.overwrite) held = slot;
        pending += 1;
        try {
          await sleep(waitMs, context.signal);
        } finally {
          pending -= 1;
          if (held === slot) held = undefined;
        }
        return [{ relation: 'Success', message: slot.message }];
      },
    };
  },
});

type Wait = (message: RuleMessage, context: NodeContext) => number;

/** The wait of one message in ms: a fixed number, or a template read with the message (as RuleGo). */
function compileWait(config: Config, where: string, env: NodeEnvOf): Wait {
  const { delayMs } = config;
  const text = typeof delayMs === 'number' ? String(delayMs) : (delayMs ?? '').trim();
  if (text === '') {
    if (config.periodInSecondsPattern.trim() === '') return () => config.periodInSeconds * 1000;
    const seconds = compileExprTemplate(config.periodInSecondsPattern, where);
    return (message, context) => {
      const value = renderAsString(seconds, env(message, context)).trim();
      if (!INTEGER.test(value)) throw new Error(`strconv.Atoi: parsing "${value}": invalid syntax`);
      return Number(value) * 1000;
    };
  }
  if (typeof delayMs === 'number' || INTEGER.test(text)) {
    const fixed = Number(text);
    if (!Number.isInteger(fixed)) throw new Error(`${where}: delayMs must be a whole number`);
    // As RuleGo: a delay written as 0 or less is not a delay; each message takes Failure.
    if (fixed <= 0) {
      return () => {
        throw new Error('no delay time configured');
      };
    }
    return () => fixed;
  }
  const template = compileExprTemplate(text, where);
  return (message, context) => readInteger(template, env(message, context));
}

function readInteger(template: ExprTemplate, env: Record<string, unknown>): number {
  // As RuleGo's ExecuteAsString: a template that fails to evaluate gives "".
  const text = renderAsString(template, env);
  if (!INTEGER.test(text)) {
    throw new Error(
      `failed to parse delay time from template result '${text}': strconv.ParseInt: parsing "${text}": invalid syntax`,
    );
  }
  return Number(text);
}

function offset(message: RuleMessage): number {
  const value = message.metadata[OFFSET_KEY];
  if (value === undefined || value === '') return 0;
  if (!INTEGER.test(value.trim())) {
    throw new Error(
      `failed to parse offset ms from metadata '${value}': strconv.ParseInt: parsing "${value.trim()}": invalid syntax`,
    );
  }
  return Number(value.trim());
}
