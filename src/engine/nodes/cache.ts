// RuleGo's cacheGet, cacheSet and cacheDelete (components/external/cache_node.go): keys at the chain
// level (this chain's own) or the global level (every chain's), ${...} templates in keys and values,
// a trailing * for every key with that prefix, TTLs as Go durations.
import { z } from 'zod';
import { cacheOf, parseTtl, type RuleCache } from '../cache.ts';
import { compileExprTemplate, exprText, type ExprTemplate } from '../expr-template.ts';
import { goJson } from '../go-json.ts';
import type { NodeContext, NodeFactoryContext, NodeOutput, RuleMessage } from '../types.ts';
import { optionalText, requiredText, wholeNumberIn } from './config-fields.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';

const CACHE_MISS = 'cache: key is missing';

const level = z.string().default('chain').meta({
  label: 'Level',
  description: "chain: this chain's own keys; global: keys every chain shares.",
});
const keySchema = z.object({
  level,
  key: requiredText(
    'Key',
    'Cache key; ${metadata.key} and ${msg.key} are replaced; a trailing * matches a prefix.',
  ),
});

const getSchema = z.object({
  keys: z.array(keySchema).min(1).meta({ label: 'Keys', description: 'The keys to read.' }),
  outputMode: wholeNumberIn(
    0,
    2,
    2,
    'Output',
    '0: into the metadata; 1: merged into the JSON data; 2: the data becomes {key: value}.',
  ),
  whenKeyNotFound: optionalText(
    'When not found',
    'failure: Failure when no key has a value; success: go on; empty: Failure only in output mode 2.',
  ),
});
const setSchema = z.object({
  items: z
    .array(
      z.object({
        level,
        key: requiredText('Key', 'Cache key; ${...} is replaced.'),
        value: z.unknown().meta({
          label: 'Value',
          description: "The value; a text with one ${expr} keeps the value's type.",
        }),
        ttl: optionalText('TTL', 'How long it lives: 10s, 5m, 1h; empty: no expiry.'),
      }),
    )
    .min(1)
    .meta({ label: 'Items', description: 'The keys to set.' }),
});
const deleteSchema = z.object({
  keys: z
    .array(keySchema)
    .min(1)
    .meta({ label: 'Keys', description: 'The keys to delete; a trailing * deletes a prefix.' }),
});

/** A key rendered for one message: its level's namespace and the key as written. */
interface RenderedKey {
  space: string;
  key: string;
}

interface Scoped {
  cache: RuleCache;
  env(message: RuleMessage, context: NodeContext): Record<string, unknown>;
  /** Compiles a config text of this node (`what` names it in errors). */
  template(text: string, what: string): ExprTemplate;
  /** Compiles a configured key; the result renders it with a message's environment. */
  key(item: { level: string; key: string }): (environment: Record<string, unknown>) => RenderedKey;
  /** Compiles configured keys; the result renders them for a message and visits each in order. */
  keys(
    items: Array<{ level: string; key: string }>,
  ): (message: RuleMessage, context: NodeContext, visit: KeyVisit) => Promise<void>;
}

/** What cacheGet and cacheDelete do with one key: as written, or ending in * (the prefix without it). */
interface KeyVisit {
  exact(space: string, key: string): Promise<void>;
  prefix(space: string, prefix: string): Promise<void>;
}

function scoped(factory: NodeFactoryContext): Scoped {
  const { chainId, nodeId, services } = factory;
  const template = (text: string, what: string): ExprTemplate =>
    compileExprTemplate(text, `node "${nodeId}" ${what}`);
  const env = nodeEnvOf(factory, true);
  const key = (item: { level: string; key: string }) => {
    const space = item.level === 'global' ? 'global:' : `chain:${chainId}:`;
    const compiled = template(item.key, 'key');
    return (environment: Record<string, unknown>): RenderedKey => ({
      space,
      key: compiled.render(environment),
    });
  };
  return {
    cache: cacheOf(services),
    env,
    template,
    key,
    keys(items) {
      const renders = items.map(key);
      return async (message, context, visit) => {
        const environment = env(message, context);
        for (const { space, key } of renders.map((render) => render(environment))) {
          if (key.endsWith('*')) await visit.prefix(space, key.slice(0, -1));
          else await visit.exact(space, key);
        }
      };
    },
  };
}

export const cacheGetNode = defineNode(getSchema, {
  type: 'cacheGet',
  label: 'Cache get',
  description: 'Reads cache keys into the metadata, into the data, or as the data.',
  category: 'external',
  relations: ['Success', 'Failure'],
  create(config, context) {
    const { cache, keys } = scoped(context);
    const visitKeys = keys(config.keys);
    return {
      async process(message, nodeContext) {
        const values: Record<string, unknown> = {};
        await visitKeys(message, nodeContext, {
          async exact(space, key) {
            values[key] = (await cache.get(space + key)) ?? null;
          },
          async prefix(space, prefix) {
            const found = await cache.getByPrefix(space + prefix);
            for (const [name, value] of Object.entries(found)) values[name.slice(space.length)] = value;
          },
        });
        return output(config, message, values);
      },
    };
  },
});

function output(
  config: z.infer<typeof getSchema>,
  message: RuleMessage,
  values: Record<string, unknown>,
): NodeOutput[] {
  const notFound = Object.values(values).every((value) => value === null);
  const when = config.whenKeyNotFound.toLowerCase();
  if (notFound && (when === 'failure' || (when !== 'success' && config.outputMode === 2)))
    throw new Error(CACHE_MISS);
  if (config.outputMode === 0) {
    const metadata = { ...message.metadata };
    for (const [key, value] of Object.entries(values)) metadata[key] = exprText(value);
    return [{ relation: 'Success', message: { ...message, metadata } }];
  }
  if (config.outputMode === 1) {
    if (message.dataType !== 'JSON') throw new Error('data type must be JSON type');
    let data: unknown;
    try {
      data = JSON.parse(message.data) as unknown;
    } catch {
      data = undefined;
    }
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new Error('data must be able to be serialized into a map structure');
    }
    return [{ relation: 'Success', message: { ...message, data: goJson({ ...data, ...values }) } }];
  }
  return [{ relation: 'Success', message: { ...message, data: goJson(values) } }];
}

export const cacheSetNode = defineNode(setSchema, {
  type: 'cacheSet',
  label: 'Cache set',
  description: 'Writes cache keys, each with an optional TTL; the message passes on unchanged.',
  category: 'external',
  relations: ['Success', 'Failure'],
  create(config, context) {
    const { cache, env, template, key: compileKey } = scoped(context);
    const items = config.items.map((item) => ({
      key: compileKey(item),
      value: typeof item.value === 'string' ? template(item.value, 'value') : undefined,
      raw: item.value,
      ttlMs: parseTtl(item.ttl),
    }));
    return {
      async process(message, nodeContext) {
        const environment = env(message, nodeContext);
        for (const item of items) {
          const { space, key } = item.key(environment);
          if (key === '') throw new Error('key is empty');
          const value = item.value ? item.value.evaluate(environment) : item.raw;
          await cache.set(space + key, value, item.ttlMs);
        }
        return [{ relation: 'Success', message }];
      },
    };
  },
});

export const cacheDeleteNode = defineNode(deleteSchema, {
  type: 'cacheDelete',
  label: 'Cache delete',
  description: 'Deletes cache keys (a trailing * deletes every key with that prefix).',
  category: 'external',
  relations: ['Success', 'Failure'],
  create(config, context) {
    const { cache, keys } = scoped(context);
    const visitKeys = keys(config.keys);
    const remove: KeyVisit = {
      exact: (space, key) => cache.delete(space + key),
      prefix: (space, prefix) => cache.deleteByPrefix(space + prefix),
    };
    return {
      async process(message, nodeContext) {
        await visitKeys(message, nodeContext, remove);
        return [{ relation: 'Success', message }];
      },
    };
  },
});
