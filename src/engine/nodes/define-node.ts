// How a node type is declared: its configuration schema is named once, and the config type the rest
// of the definition sees (create, nodeRefs...) is inferred from it, so no node spells out
// `NodeDefinition<z.infer<typeof configSchema>>` and then `configSchema` again.
import { z } from 'zod';
import type { NodeDefinition, NodeInstance, NodeOutput, RuleMessage } from '../types.ts';

/** A node type whose configuration `configSchema` validates. */
export function defineNode<Schema extends z.ZodType>(
  configSchema: Schema,
  definition: Omit<NodeDefinition<z.output<Schema>>, 'configSchema'>,
): NodeDefinition<z.output<Schema>> {
  return { ...definition, configSchema: configSchema as z.ZodType<z.output<Schema>> };
}

/** The schema of a node with nothing to configure (unknown keys are dropped). */
export const noConfig = z.object({});

/** `create` of a node that keeps no state: each message's outputs follow from the message alone. */
export function stateless(route: (message: RuleMessage) => NodeOutput[]): () => NodeInstance {
  return () => ({ process: (message) => Promise.resolve(route(message)) });
}

/** `create` of a node that passes every message on unchanged with Success. */
export const passOn = stateless((message) => [{ relation: 'Success', message }]);
