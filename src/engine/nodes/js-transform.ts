import { z } from 'zod';
import { finishers, scriptNode } from '../message-script.ts';
import { toMetadata } from '../message.ts';
import type { DataType, RuleMessage } from '../types.ts';
import { defineNode } from './define-node.ts';

const configSchema = z.object({
  jsScript: z
    .string()
    .nullish()
    .transform((text) => text ?? '')
    .meta({
      label: 'Transform script',
      description:
        'Body of function Transform(msg, metadata, msgType, dataType); return {msg, metadata, msgType, dataType?}.',
    }),
});

const DATA_TYPES = new Set<string>(['JSON', 'TEXT', 'BINARY']);

export const jsTransformNode = defineNode(configSchema, {
  type: 'jsTransform',
  label: 'Script transform',
  description: 'Rewrites the message data, metadata and type with a JavaScript function.',
  category: 'transform',
  relations: ['Success', 'Failure'],
  async create(config, factory) {
    // As RuleGo: without a script the node passes the message on unchanged.
    if (config.jsScript.trim() === '') {
      return { process: (message) => Promise.resolve([{ relation: 'Success', message }]) };
    }
    return scriptNode(config.jsScript, finishers.message, factory, (output, message) => [
      { relation: 'Success', message: decode(output, message) },
    ]);
  },
});

/** Reads `[metadata, msgType, dataType, hasMsg]` + newline + data, as the message finisher writes it. */
function decode(output: string, input: RuleMessage): RuleMessage {
  const split = output.indexOf('\n');
  const [metadata, type, dataType, hasMsg] = JSON.parse(output.slice(0, split)) as [
    unknown,
    unknown,
    unknown,
    boolean,
  ];
  const declared =
    typeof dataType === 'string' && DATA_TYPES.has(dataType) ? (dataType as DataType) : undefined;
  return {
    id: input.id,
    ts: input.ts,
    type: typeof type === 'string' ? type : input.type,
    // As RuleGo: the data type changes only when the script names one.
    dataType: declared ?? input.dataType,
    data: hasMsg ? output.slice(split + 1) : input.data,
    metadata: metadata === null ? input.metadata : toMetadata(metadata),
  };
}
