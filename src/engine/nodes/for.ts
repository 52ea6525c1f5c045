import { z } from 'zod';
import { compileRuleExpression, exprText, unwrapExpression } from '../expr-template.ts';
import { readData } from '../message.ts';
import type { RuleMessage } from '../types.ts';
import { runFailure } from '../run-outputs.ts';
import { optionalText, requiredText, wholeNumberIn } from './config-fields.ts';
import { CHAIN_PREFIX, resultValue, runBody, takeBreak } from './loop-body.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';

const configSchema = z.object({
  range: optionalText(
    'Range',
    'What to iterate, an expr-lang expression: msg.items, metadata.list, 1..5, ${msg.items}; empty iterates the data itself.',
  ),
  do: requiredText(
    'Body',
    'Id of the node that starts the body for each item, or chain:<id> to run another chain.',
  ),
  mode: wholeNumberIn(
    0,
    3,
    0,
    'Mode',
    '0: pass the incoming data on; 1: data becomes the array of every result; 2: each iteration gets the previous result, the last passes on; 3: start each body without waiting.',
  ),
});

export const forNode = defineNode(configSchema, {
  type: 'for',
  label: 'For each',
  description:
    'Runs the body once per item (metadata _loopIndex, _loopItem, _loopKey), one after another, then passes on Success.',
  category: 'flow',
  relations: ['Success', 'Failure'],
  nodeRefs: (config) => (config.do.startsWith(CHAIN_PREFIX) ? [] : [config.do]),
  create(config, factory) {
    const source = config.range.trim();
    const range = source === '' ? undefined : compileRuleExpression(source, `node "${factory.nodeId}" range`);
    // An integer range (1..3) leaves the data as it is; only _loopItem carries the number (RuleGo's []int).
    const isNumberRange = /\.\./.test(
      unwrapExpression(source).replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, ''),
    );
    const env = nodeEnvOf(factory);
    const body = config.do.startsWith(CHAIN_PREFIX)
      ? { chain: true, id: config.do.slice(CHAIN_PREFIX.length).trim() }
      : { chain: false, id: config.do };
    return {
      async process(incoming, context) {
        const items: unknown = range
          ? range.evaluate(env(incoming, context))
          : readData({ ...incoming, dataType: 'JSON' });
        let message: RuleMessage = { ...incoming, metadata: { ...incoming.metadata } };
        const collected: unknown[] = [];
        let index = 0;
        for (const [key, item] of entries(items)) {
          // Counted against the run's budget, and lets the event loop turn (time limits, aborts).
          await context.checkpoint();
          const metadata: Record<string, string> = { ...message.metadata, _loopIndex: String(index) };
          if (key !== undefined) metadata['_loopKey'] = key;
          const itemText = exprText(item);
          metadata['_loopItem'] = itemText;
          let input: RuleMessage = { ...message, metadata };
          if (!(isNumberRange && typeof item === 'number') && (config.mode !== 2 || index === 0)) {
            input = withItem(input, itemText);
          }
          if (config.mode === 3) {
            void runBody(body, input, context).catch(() => undefined);
            message = input;
          } else {
            const result = await runBody(body, input, context);
            if (result.outcome === 'failure') throw runFailure(result, `iteration ${index} failed`);
            // The body's metadata is laid over the loop message, as RuleGo does for every end.
            for (const output of result.results) Object.assign(input.metadata, output.metadata);
            if (config.mode === 1) {
              for (const output of result.results) collected.push(resultValue(incoming, output));
            }
            const last = result.results.at(-1);
            message = config.mode === 2 && last ? { ...last, metadata: { ...input.metadata } } : input;
          }
          index += 1;
          if (takeBreak(message)) break;
        }
        if (config.mode === 1) {
          return [{ relation: 'Success', message: { ...message, data: JSON.stringify(collected) } }];
        }
        if (config.mode === 2) return [{ relation: 'Success', message }];
        const restored = { ...message, data: incoming.data, dataType: incoming.dataType };
        return [{ relation: 'Success', message: restored }];
      },
    };
  },
});

/**
 * The item as the data, as RuleGo's msg.SetData(str.ToString(item)): text as it is, other values as
 * JSON; the data type stays the loop message's, so a text item of a JSON message is JSON typed.
 */
function withItem(message: RuleMessage, itemText: string): RuleMessage {
  return { ...message, data: itemText };
}

/** [key, item] for an array (no key) or the entries of an object; one at a time. */
function* entries(range: unknown): Generator<[string | undefined, unknown]> {
  if (Array.isArray(range)) {
    for (const item of range) yield [undefined, item];
  } else if (typeof range === 'object' && range !== null) {
    for (const [key, item] of Object.entries(range)) yield [key, item];
  } else {
    throw new Error('must array slice or struct type');
  }
}
