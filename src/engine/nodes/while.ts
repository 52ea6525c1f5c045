import { z } from 'zod';
import { compileRuleExpression } from '../expr-template.ts';
import { goJson } from '../go-json.ts';
import type { RuleMessage } from '../types.ts';
import { runFailure } from '../run-outputs.ts';
import { wholeNumberIn } from './config-fields.ts';
import { CHAIN_PREFIX, resultValue, runBody, takeBreak, type LoopBody } from './loop-body.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';

const configSchema = z.object({
  condition: z.string().trim().min(1, 'condition is empty').meta({
    label: 'Condition',
    description: 'An expr-lang expression checked before each iteration; the loop runs while it is true.',
  }),
  do: z.string().trim().min(1, 'do is empty').meta({
    label: 'Body',
    description: 'Id of the node that starts the body of each iteration, or chain:<id> to run another chain.',
  }),
  mode: wholeNumberIn(
    0,
    2,
    2,
    'Mode',
    "0: pass the incoming message on; 1: data becomes the array of every iteration's results; 2: each iteration gets the previous result, the last passes on.",
  ),
});

/** `nodeId` or `chain:chainId`, as RuleGo's while reads `do`. */
function bodyOf(target: string): LoopBody {
  const parts = target.split(':');
  if (parts.length === 1) return { chain: false, id: target };
  if (parts.length === 2) {
    return { chain: (parts[0] ?? '').trim() + ':' === CHAIN_PREFIX, id: (parts[1] ?? '').trim() };
  }
  throw new Error('do variable should be nodeId or chain:chainId style');
}

/** RuleGo's castToBool: booleans, "true" in any case, and non-zero numbers. */
function truthy(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value.toLowerCase() === 'true';
  if (typeof value === 'number') return value !== 0;
  return false;
}

export const whileNode = defineNode(configSchema, {
  type: 'while',
  label: 'While',
  description:
    'Runs the body again and again while the condition holds (metadata _loopIndex); a break node in the body ends it. Success after the last iteration.',
  category: 'flow',
  relations: ['Success', 'Failure'],
  nodeRefs: (config) => {
    try {
      const body = bodyOf(config.do);
      return body.chain ? [] : [body.id];
    } catch {
      return []; // create refuses the form with RuleGo's words
    }
  },
  create(config, factory) {
    const body = bodyOf(config.do);
    const condition = compileRuleExpression(config.condition, `node "${factory.nodeId}" condition`);
    const env = nodeEnvOf(factory);
    return {
      async process(incoming, context) {
        const original: RuleMessage = { ...incoming, metadata: { ...incoming.metadata } };
        let message = incoming;
        const merged: unknown[] = [];
        for (let index = 0; ; index += 1) {
          await context.checkpoint();
          message.metadata['_loopIndex'] = String(index);
          if (!truthy(condition.evaluate(env(message, context)))) break;
          const result = await runBody(body, message, context);
          if (result.outcome === 'failure') throw runFailure(result, `iteration ${index} failed`);
          if (config.mode === 1) for (const end of result.results) merged.push(resultValue(message, end));
          const last = result.results.at(-1);
          if (last) message = { ...last, metadata: { ...last.metadata } };
          if (takeBreak(message)) break;
        }
        if (config.mode === 0) return [{ relation: 'Success', message: original }];
        if (config.mode === 1) {
          return [
            { relation: 'Success', message: { ...message, data: goJson(merged.length ? merged : null) } },
          ];
        }
        return [{ relation: 'Success', message }];
      },
    };
  },
});
