// The RuleGo rule-chain JSON. Every object is loose so that keys written by RuleGo tools (or by a
// later version of this service) survive a load/save round trip unchanged.
import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { inWords } from '../core/zod-words.ts';
import { ID_PATTERN, idSchema as chainIdSchema } from '../core/id-schema.ts';
import { endpointSchema } from './endpoint-dsl.ts';

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
    // A chain id names files and map keys: JavaScript's reserved names (__proto__, ...) are refused.
    id: chainIdSchema,
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
    /** RuleGo's endpoints: an HTTP route, a schedule or an MQTT subscription that runs this chain. */
    endpoints: z.array(endpointSchema).optional(),
    /** RuleGo's connections from a node to another chain (toId is the chain's id). */
    ruleChainConnections: z.array(ruleConnectionSchema).optional(),
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
  const message = inWords(issue.message);
  return path === '' ? message : `${path}: ${message}`;
}

/** Parses a rule chain, throwing AppError('invalid') that names the chain (when known) and the field. */
export function parseRuleChain(value: unknown): RuleChainDefinition {
  const parsed = ruleChainSchema.safeParse(normalizeRuleChain(value));
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

// RuleGo reads its DSL loosely (Go's zero values, mapstructure's weak typing); these are the
// forms chains written for RuleGo use: null for "not set", "true" and "5" for true and 5, a node
// without an id (RuleGo names it node<index>), a chain without a name.
const BOOLEAN_KEYS = ['debugMode', 'root', 'disabled'] as const;

/** A copy of `value` with RuleGo's loose forms made strict; anything unexpected is left to the schema. */
export function normalizeRuleChain(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = { ...value };
  if (isRecord(value['ruleChain'])) {
    const ruleChain = dropNulls(value['ruleChain']);
    ruleChain['name'] ??= '';
    weakBooleans(ruleChain);
    if (isRecord(ruleChain['configuration'])) {
      const configuration = dropNulls(ruleChain['configuration']);
      if (isRecord(configuration['vars'])) configuration['vars'] = stringValues(configuration['vars']);
      ruleChain['configuration'] = configuration;
    }
    out['ruleChain'] = ruleChain;
  }
  // RuleGo loads a chain without metadata or nodes as an empty chain.
  if (isRecord(value['ruleChain']) && (value['metadata'] === undefined || value['metadata'] === null)) {
    out['metadata'] = { nodes: [] };
  }
  if (isRecord(value['metadata'])) {
    const metadata = dropNulls(value['metadata']);
    metadata['nodes'] ??= [];
    metadata['firstNodeIndex'] = weakNumber(metadata['firstNodeIndex']);
    if (metadata['firstNodeIndex'] === undefined) delete metadata['firstNodeIndex'];
    if (Array.isArray(metadata['nodes'])) {
      metadata['nodes'] = metadata['nodes'].map((node: unknown, index) => {
        if (!isRecord(node)) return node;
        const copy = dropNulls(node);
        if (copy['id'] === undefined || copy['id'] === '') copy['id'] = `node${index}`;
        weakBooleans(copy);
        return copy;
      });
    }
    if (Array.isArray(metadata['connections'])) {
      metadata['connections'] = metadata['connections']
        .map((item: unknown) => (isRecord(item) ? dropNulls(item) : item))
        // RuleGo files carry `{}` placeholders (dynamic_node_test): a connection from and to no node routes nothing.
        .filter(
          (item: unknown) => !isRecord(item) || item['fromId'] !== undefined || item['toId'] !== undefined,
        );
    }
    out['metadata'] = metadata;
  }
  return out;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function dropNulls(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) if (item !== null) out[key] = item;
  return out;
}

function weakBooleans(value: Record<string, unknown>): void {
  for (const key of BOOLEAN_KEYS) {
    const item = value[key];
    if (typeof item === 'string' && WEAK_BOOLEANS.has(item.toLowerCase())) {
      value[key] = WEAK_BOOLEANS.get(item.toLowerCase());
    } else if (typeof item === 'number') value[key] = item !== 0;
  }
}

const WEAK_BOOLEANS = new Map<string, boolean>([
  ['true', true],
  ['1', true],
  ['t', true],
  ['false', false],
  ['0', false],
  ['f', false],
  ['', false],
]);

function weakNumber(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  const number = Number(value.trim());
  return value.trim() !== '' && Number.isFinite(number) ? number : value;
}

/** vars as RuleGo's str.ToStringMapString: every value as text (non-JSON values left to the schema). */
function stringValues(value: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    if (typeof item === 'number' || typeof item === 'boolean') out[key] = String(item);
    else if (isRecord(item) || Array.isArray(item)) out[key] = JSON.stringify(item);
    else if (item !== null) out[key] = item;
  }
  return out;
}

/**
 * Parses a node configuration as RuleGo's maps.Map2Struct does (weakly typed): where the schema
 * wants a number or a boolean and finds a string ("5", "true"), or wants a string and finds a
 * number or boolean, the value is converted and the parse tried again.
 */
export function parseWeakly<T>(schema: z.ZodType<T>, value: unknown): z.ZodSafeParseResult<T> {
  let input = value;
  let parsed = schema.safeParse(input);
  for (let round = 0; round < 16 && !parsed.success; round++) {
    const next = coerceIssues(input, parsed.error.issues);
    if (next === undefined) break;
    input = next;
    parsed = schema.safeParse(input);
  }
  return parsed;
}

function coerceIssues(value: unknown, issues: readonly z.core.$ZodIssue[]): unknown {
  let changed = false;
  const root = structuredClone(value);
  for (const issue of issues) {
    if (issue.code !== 'invalid_type' || issue.path.length === 0) continue;
    const parent = walk(root, issue.path.slice(0, -1));
    const key = issue.path[issue.path.length - 1];
    if (parent === undefined || key === undefined || typeof key === 'symbol') continue;
    const current = (parent as Record<PropertyKey, unknown>)[key];
    // null is Go's "not set": the field takes its default.
    if (current === null) {
      delete (parent as Record<PropertyKey, unknown>)[key];
      changed = true;
      continue;
    }
    const converted = coerce(current, issue.expected);
    if (converted === undefined) continue;
    (parent as Record<PropertyKey, unknown>)[key] = converted;
    changed = true;
  }
  return changed ? root : undefined;
}

function walk(root: unknown, path: readonly PropertyKey[]): object | undefined {
  let value = root;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || typeof key === 'symbol') return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return typeof value === 'object' && value !== null ? value : undefined;
}

function coerce(value: unknown, expected: string): unknown {
  if (expected === 'number' || expected === 'int') {
    if (typeof value === 'boolean') return value ? 1 : 0;
    const number = weakNumber(value);
    return typeof number === 'number' ? number : undefined;
  }
  if (expected === 'boolean') {
    if (typeof value === 'string') return WEAK_BOOLEANS.get(value.trim().toLowerCase());
    if (typeof value === 'number') return value !== 0;
    return undefined;
  }
  if (expected === 'string' && (typeof value === 'number' || typeof value === 'boolean')) {
    return String(value);
  }
  return undefined;
}
