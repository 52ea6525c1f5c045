// What the nodes that call several nodes at once share (groupAction, groupFilter), and the records
// RuleGo merges the ends of several nodes or branches into (groupAction, join, flow).
import { z } from 'zod';
import { goJson } from '../go-json.ts';
import { readData } from '../message.ts';
import type { RuleMessage } from '../types.ts';

/** RuleGo's default wait, also used for a timeout of 0 or less. */
const DEFAULT_TIMEOUT_S = 30;

/** Node ids: a comma-separated list or an array. */
export const nodeIdList = z.union([z.string(), z.array(z.union([z.string(), z.number()]))]);

/** The wait for the nodes, in seconds. */
export function timeoutField(description: string) {
  return z.number().default(DEFAULT_TIMEOUT_S).meta({ label: 'Timeout (s)', description });
}

export function idsOf(config: { nodeIds: z.infer<typeof nodeIdList> }): string[] {
  const list = typeof config.nodeIds === 'string' ? config.nodeIds.split(',') : config.nodeIds.map(String);
  return list.map((id) => id.trim()).filter((id) => id !== '');
}

/**
 * Calls every node at once. `settle` sees each result as it comes (and how many have ended) and gives
 * the answer once it is known, else undefined. The first error, or `timeoutSeconds` (0 or less: 30)
 * passing first, rejects.
 */
export function callAll<T>(
  ids: string[],
  timeoutSeconds: number,
  call: (nodeId: string, index: number) => Promise<T>,
  settle: (result: T, index: number, ended: number) => boolean | undefined,
): Promise<boolean> {
  const timeoutMs = (timeoutSeconds > 0 ? timeoutSeconds : DEFAULT_TIMEOUT_S) * 1000;
  return new Promise<boolean>((resolve, reject) => {
    let ended = 0;
    const timer = setTimeout(() => reject(new Error('context deadline exceeded')), timeoutMs);
    ids.forEach((nodeId, index) => {
      call(nodeId, index).then(
        (result) => {
          ended += 1;
          const answer = settle(result, index, ended);
          if (answer === undefined) return;
          clearTimeout(timer);
          resolve(answer);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  });
}

/** One end as RuleGo lists it: `{msg, err, nodeId}`, the msg without its metadata. */
export function endRecord(message: RuleMessage, err: string, nodeId: string) {
  const { ts, id, dataType, type, data } = message;
  return { msg: { ts, id, dataType, type, data, metadata: {} }, err, nodeId };
}

/** RuleGo's mergeToMap: JSON objects merged into one, other data under its node's id (a Go map: keys sorted). */
export function mergeToMap(ends: Array<{ nodeId: string; message: RuleMessage }>): string {
  const merged: Record<string, unknown> = {};
  for (const { nodeId, message } of ends) {
    const value = readData(message);
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    if (message.dataType === 'JSON' && isObject) Object.assign(merged, value);
    else merged[nodeId] = value;
  }
  return goJson(merged);
}
