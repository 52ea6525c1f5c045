// The RuleGo rule-chain JSON. Every object is loose so that keys written by RuleGo tools (or by a
// later version of this service) survive a load/save round trip unchanged.
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { ID_PATTERN } from '../core/ids.ts';

const idSchema = z.string().regex(ID_PATTERN, 'must be 1-64 letters, digits, "-" or "_"');

const additionalInfoSchema = z.looseObject({});

export const ruleNodeSchema = z.looseObject({
  id: idSchema,
  type: z.string().min(1, 'must not be empty'),
  name: z.string().optional(),
  debugMode: z.boolean().optional(),
  configuration: z.record(z.string(), z.unknown()).optional(),
  additionalInfo: additionalInfoSchema.optional(),
});

export const ruleConnectionSchema = z.looseObject({
  fromId: idSchema,
  toId: idSchema,
  type: z.string().min(1, 'must not be empty'),
  label: z.string().optional(),
});

export const ruleChainSchema = z.looseObject({
  ruleChain: z.looseObject({
    id: idSchema,
    name: z.string(),
    root: z.boolean().optional(),
    debugMode: z.boolean().optional(),
    disabled: z.boolean().optional(),
    configuration: z.looseObject({ vars: z.record(z.string(), z.string()).optional() }).optional(),
    additionalInfo: additionalInfoSchema.optional(),
  }),
  metadata: z.looseObject({
    firstNodeIndex: z.number().int().min(0).optional(),
    nodes: z.array(ruleNodeSchema),
    connections: z.array(ruleConnectionSchema).optional(),
  }),
});

export type RuleChainDefinition = z.infer<typeof ruleChainSchema>;
export type RuleNodeDefinition = z.infer<typeof ruleNodeSchema>;
export type RuleConnectionDefinition = z.infer<typeof ruleConnectionSchema>;

/** `metadata.nodes[1].id` style path for error messages. */
export function formatIssuePath(path: ReadonlyArray<PropertyKey>): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text;
}

/** The first zod issue as `path: message`, the form every validation error of the engine uses. */
export function describeZodError(error: z.ZodError, prefix = ''): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid value';
  const path = formatIssuePath([...(prefix === '' ? [] : [prefix]), ...issue.path]);
  const message = issue.message.replace(/^Invalid input: /, '');
  return path === '' ? message : `${path}: ${message}`;
}

/** Parses a rule chain, throwing AppError('invalid') that names the chain (when known) and the field. */
export function parseRuleChain(value: unknown): RuleChainDefinition {
  const parsed = ruleChainSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const id = chainIdOf(value);
  const where = id === undefined ? 'invalid rule chain' : `rule chain "${id}"`;
  throw new AppError('invalid', `${where}: ${describeZodError(parsed.error)}`);
}

function chainIdOf(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const ruleChain = (value as { ruleChain?: unknown }).ruleChain;
  if (typeof ruleChain !== 'object' || ruleChain === null) return undefined;
  const id = (ruleChain as { id?: unknown }).id;
  return typeof id === 'string' && ID_PATTERN.test(id) ? id : undefined;
}
