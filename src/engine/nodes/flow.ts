import { z } from 'zod';
import { ID_PATTERN } from '../../core/id-schema.ts';
import { withErrorMessage } from '../message.ts';
import type { NodeOutput, RuleMessage, RunEnd, RunResult } from '../types.ts';
import { endRecord } from './node-group.ts';
import { defineNode } from './define-node.ts';
import { flag } from './config-fields.ts';

const configSchema = z.object({
  targetId: z.string().regex(ID_PATTERN, 'must be a rule chain id').meta({
    label: 'Rule chain',
    description: 'Id of the chain to run; looked up when the message arrives.',
  }),
  extend: flag(
    'Pass each result',
    'Pass on every end of the sub-chain as its own message, with its own relation, instead of one merged message.',
  ),
});

export const flowNode = defineNode(configSchema, {
  type: 'flow',
  label: 'Sub-chain',
  description:
    'Runs another rule chain with the message; passes on the list of its ends as {msg, err, nodeId} records, or each end as it is.',
  category: 'flow',
  relations: ['Success', 'Failure'],
  create(config) {
    return {
      async process(message, context) {
        const result = await context.runChain(config.targetId, message);
        const ends = endsOf(result);
        if (ends.length === 0 && result.outcome === 'failure') {
          const failure = result.error ?? 'sub-chain failed';
          const cause = result.failure?.cause;
          return [
            {
              relation: 'Failure',
              message: withErrorMessage(message, failure),
              error: failure,
              ...(cause !== undefined ? { cause } : {}),
            },
          ];
        }
        if (config.extend) {
          return ends.map((end): NodeOutput => ({
            relation: end.relation,
            message: end.message,
            ...(end.cause !== undefined ? { cause: end.cause } : {}),
          }));
        }
        return [merge(message, ends)];
      },
    };
  },
});

/** The run's ends; a run from an engine that does not report them gives its results as Success ends. */
function endsOf(result: RunResult): RunEnd[] {
  if (result.ends) return result.ends;
  return result.results.map((message) => ({ nodeId: '', relation: 'Success', message }));
}

/**
 * RuleGo's merge: the data is the list of `{msg, err, nodeId}` records, one per end (each msg without
 * metadata); the metadata of the ends that succeeded is laid over the incoming one; an end on Failure
 * makes the whole Failure.
 */
function merge(message: RuleMessage, ends: RunEnd[]): NodeOutput {
  const metadata = { ...message.metadata };
  let failure: string | undefined;
  let cause: unknown;
  const records = ends.map((end) => {
    const error = end.relation === 'Failure' ? (end.message.metadata['errorMsg'] ?? 'failure') : '';
    if (end.relation === 'Failure') {
      failure = error;
      cause = end.cause;
    } else Object.assign(metadata, end.message.metadata);
    return endRecord(end.message, error, end.nodeId);
  });
  const merged: RuleMessage = { ...message, dataType: 'JSON', data: JSON.stringify(records), metadata };
  if (failure === undefined) return { relation: 'Success', message: merged };
  return {
    relation: 'Failure',
    message: withErrorMessage(merged, failure),
    error: failure,
    ...(cause !== undefined ? { cause } : {}),
  };
}
