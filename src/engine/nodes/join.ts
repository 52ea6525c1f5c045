import { z } from 'zod';
import type { JoinArrival, RuleMessage } from '../types.ts';
import { endRecord, mergeToMap } from './node-group.ts';
import { defineNode } from './define-node.ts';
import { flag } from './config-fields.ts';

/** RuleGo's default wait, also used for a timeout of 0 or less. */
const DEFAULT_TIMEOUT_S = 30;

const configSchema = z.object({
  timeout: z.number().optional().meta({
    label: 'Timeout (s)',
    description: 'Seconds to wait for every branch; unset, 0 or less waits 30 s (as RuleGo).',
  }),
  mergeToMap: flag(
    'Merge to map',
    "Merge the branches' object data into one object (other data under the sending node's id) instead of a list of {msg, err, nodeId}.",
  ),
});

export const joinNode = defineNode(configSchema, {
  type: 'join',
  label: 'Join',
  description:
    'Waits for every branch of the nearest split above it, then passes one message whose data holds them all; a branch that arrives on Failure fails the join.',
  category: 'flow',
  relations: ['Success', 'Failure'],
  role: 'join',
  create(config) {
    const merge = (arrivals: JoinArrival[]): { message: RuleMessage; error?: string } =>
      mergeArrivals(arrivals, config.mergeToMap);
    const seconds = config.timeout === undefined || config.timeout <= 0 ? DEFAULT_TIMEOUT_S : config.timeout;
    return {
      // The engine gathers the branches and calls `join.merge`; `process` serves a lone message.
      process(message) {
        const merged = merge([{ message, nodeId: '' }]);
        return Promise.resolve([{ relation: 'Success', message: merged.message }]);
      },
      join: { timeoutMs: seconds * 1000, merge },
    };
  },
});

/**
 * RuleGo's merge: data is the list of `{msg, err, nodeId}` records (each msg without metadata), or
 * with `toMap` one object of the branches' objects, other data under the sender's node id. Metadata
 * of the branches that succeeded is laid over the first message's; failed branches give the error.
 */
export function mergeArrivals(
  arrivals: JoinArrival[],
  toMap: boolean,
): { message: RuleMessage; error?: string } {
  const first = arrivals[0];
  if (!first) throw new Error('join has no message to merge');
  const metadata: Record<string, string> = { ...first.message.metadata };
  let errors = '';
  for (const arrival of arrivals) {
    if (arrival.error !== undefined) errors += `NodeId=${arrival.nodeId},Err=${arrival.error} `;
    else if (arrival.nodeId !== '') Object.assign(metadata, arrival.message.metadata);
  }
  const senders = arrivals.filter((arrival) => arrival.nodeId !== '');
  // A merged map is a Go map in RuleGo (keys sorted); the records a struct list (fields in order).
  const data = toMap
    ? mergeToMap(senders)
    : JSON.stringify(
        senders.map((arrival) => endRecord(arrival.message, arrival.error ?? '', arrival.nodeId)),
      );
  const message: RuleMessage = { ...first.message, dataType: 'JSON', data, metadata };
  return errors === '' ? { message } : { message, error: errors };
}
