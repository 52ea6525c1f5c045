// What the for and while nodes share: the body each iteration runs, how its results are collected
// and the mark the break node leaves to end the loop.
import { readData } from '../message.ts';
import type { NodeContext, RuleMessage, RunResult } from '../types.ts';

/** The prefix of a `do` that names another chain. */
export const CHAIN_PREFIX = 'chain:';

/** The break node sets this metadata to "1" to end the loop after the current iteration. */
export const BREAK_KEY = '_break';

/** A loop body: the nodes from `id` on in this chain, or the chain `id`. */
export interface LoopBody {
  chain: boolean;
  id: string;
}

export function runBody(body: LoopBody, message: RuleMessage, context: NodeContext): Promise<RunResult> {
  if (body.chain) return context.runChain(body.id, message);
  if (!context.runNode) throw new Error('this engine cannot run a node body');
  return context.runNode(body.id, message);
}

/** True when the iteration's message carries the break mark, which is then removed. */
export function takeBreak(message: RuleMessage): boolean {
  if (message.metadata[BREAK_KEY] !== '1') return false;
  delete message.metadata[BREAK_KEY];
  return true;
}

/** A result as RuleGo collects it: parsed when the loop's message is JSON (and it parses), else the text. */
export function resultValue(loop: RuleMessage, result: RuleMessage): unknown {
  return loop.dataType === 'JSON' ? readData({ ...result, dataType: 'JSON' }) : result.data;
}
