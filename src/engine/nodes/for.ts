import { z } from 'zod';
import { finishers, MessageScript } from '../message-script.ts';
import { readData } from '../message.ts';
import type { NodeContext, NodeDefinition, RuleMessage, RunResult } from '../types.ts';

const CHAIN_PREFIX = 'chain:';
const NUMBER_RANGE = /^\s*(-?\d+)\s*\.\.\s*(-?\d+)\s*$/;
const MAX_ITEMS = 100_000;

const configSchema = z.object({
  range: z.string().min(1).meta({
    label: 'Range',
    description: 'What to iterate: an expression such as msg.items (array, object or number), or 1..3.',
  }),
  do: z.string().min(1).meta({
    label: 'Body',
    description: 'Id of the node that starts the body for each item, or chain:<id> to run another chain.',
  }),
  mode: z.number().int().min(0).max(2).default(0).meta({
    label: 'Mode',
    description:
      '0: pass the incoming message on; 1: data becomes the array of every result; 2: the last result.',
  }),
});

type Config = z.infer<typeof configSchema>;

export const forNode: NodeDefinition<Config> = {
  type: 'for',
  label: 'For each',
  description: 'Runs the body once per item, one after another, then passes on Success.',
  category: 'flow',
  relations: ['Success', 'Failure'],
  configSchema,
  nodeRefs: (config) => (config.do.startsWith(CHAIN_PREFIX) ? [] : [config.do]),
  async create(config, { services }) {
    const numbers = NUMBER_RANGE.exec(config.range);
    const script = numbers
      ? undefined
      : await MessageScript.expression(config.range, finishers.json, services);
    return {
      async process(message, context) {
        const range: unknown = numbers
          ? numberRange(Number(numbers[1]), Number(numbers[2]))
          : JSON.parse((await script?.run(message, context)) ?? 'null');
        const collected: unknown[] = [];
        let last: RuleMessage | undefined;
        for (const [key, item, index] of entries(range)) {
          // Counted against the run's budget, and lets the event loop turn (time limits, aborts).
          await context.checkpoint();
          const result = await runBody(config.do, itemMessage(message, key, item, index), context);
          if (result.outcome === 'failure') throw new Error(result.error ?? `iteration ${index} failed`);
          for (const output of result.results) collected.push(readData(output));
          last = result.results.at(-1) ?? last;
        }
        if (config.mode === 1) {
          const merged = { ...message, dataType: 'JSON' as const, data: JSON.stringify(collected) };
          return [{ relation: 'Success', message: merged }];
        }
        if (config.mode === 2 && last) {
          const metadata = { ...message.metadata, ...last.metadata };
          return [{ relation: 'Success', message: { ...last, metadata } }];
        }
        return [{ relation: 'Success', message }];
      },
      destroy: () => script?.dispose(),
    };
  },
};

function runBody(target: string, message: RuleMessage, context: NodeContext): Promise<RunResult> {
  if (target.startsWith(CHAIN_PREFIX)) return context.runChain(target.slice(CHAIN_PREFIX.length), message);
  if (!context.runNode) throw new Error('this engine cannot run a node body');
  return context.runNode(target, message);
}

/** [key, item, index] for an array, the entries of an object, or 0..n-1 for a number; one at a time. */
function* entries(range: unknown): Generator<[string, unknown, number]> {
  if (typeof range === 'number') {
    const items = numberRange(0, range - 1);
    for (let index = 0; index < items.length; index += 1) yield [String(index), items[index], index];
  } else if (Array.isArray(range)) {
    for (let index = 0; index < range.length; index += 1) yield [String(index), range[index], index];
  } else if (typeof range === 'object' && range !== null) {
    let index = 0;
    for (const key of Object.keys(range)) {
      yield [key, (range as Record<string, unknown>)[key], index];
      index += 1;
    }
  } else if (range !== null && range !== undefined) {
    throw new Error(`range must be an array, an object or a number, not ${typeof range}`);
  }
}

function numberRange(from: number, to: number): number[] {
  if (to - from + 1 > MAX_ITEMS) throw new Error(`range has more than ${MAX_ITEMS} items`);
  const items: number[] = [];
  for (let value = from; value <= to; value += 1) items.push(value);
  return items;
}

/** The item as the message data; its position in `_loopIndex` and `_loopKey`, as RuleGo does. */
function itemMessage(message: RuleMessage, key: string, item: unknown, index: number): RuleMessage {
  const isText = typeof item === 'string';
  return {
    ...message,
    dataType: isText ? 'TEXT' : 'JSON',
    data: isText ? item : (JSON.stringify(item) ?? 'null'),
    metadata: { ...message.metadata, _loopIndex: String(index), _loopKey: key },
  };
}
