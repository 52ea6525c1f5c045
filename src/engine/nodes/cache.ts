// RuleGo's cacheGet, cacheSet and cacheDelete (components/external/cache_node.go): keys at the chain
// level (this chain's own) or the global level (every chain's), ${...} templates in keys and values,
// a trailing * for every key with that prefix, TTLs as Go durations.
import { z } from 'zod';
import { cacheOf, parseTtl, type RuleCache } from '../cache.ts';
import { compileExprTemplate, exprText, type ExprTemplate } from '../expr-template.ts';
import { goJson } from '../go-json.ts';
import type { NodeContext, NodeDefinition, NodeFactoryContext, NodeOutput, RuleMessage } from '../types.ts';
import { wholeNumberIn } from './config-fields.ts';
import { nodeEnvOf } from './node-env.ts';

const CACHE_MISS = 'cache: key is missing';

const level = z.string().default('chain').meta({
  label: 'Level',
  description: "chain: this chain's own keys; global: keys every chain shares.",
});
const keySchema = z.object({
  level,
  key: z.string().trim().min(1).meta({
    label: 'Key',
    description: 'Cache key; ${metadata.key} and ${msg.key} are replaced; a trailing * matches a prefix.',
  }),
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
  whenKeyNotFound: z.string().default('').meta({
    label: 'When not found',
    description:
      'failure: Failure when no key has a value; success: go on; empty: Failure only in output mode 2.',
  }),
});
const setSchema = z.object({
  items: z
    .array(
      z.object({
        level,
        key: z.string().trim().min(1).meta({ label: 'Key', description: 'Cache key; ${...} is replaced.' }),
        value: z.unknown().meta({
          label: 'Value',
          description: "The value; a text with one ${expr} keeps the value's type.",
        }),
        ttl: z
          .string()
          .default('')
          .meta({ label: 'TTL', description: 'How long it lives: 10s, 5m, 1h; empty: no expiry.' }),
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
  /** Compiles configured keys; the result renders them all for a message. */
  keys(
    items: Array<{ level: string; key: string }>,
  ): (message: RuleMessage, context: NodeContext) => RenderedKey[];
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
      return (message, context) => {
        const environment = env(message, context);
        return renders.map((render) => render(environment));
      };
    },
  };
}

export const cacheGetNode: NodeDefinition<z.infer<typeof getSchema>> = {
  type: 'cacheGet',
  label: 'Cache get',
  description: 'Reads cache keys into the metadata, into the data, or as the data.',
  category: 'external',
  relations: ['Success', 'Failure'],
  configSchema: getSchema,
  create(config, context) {
    const { cache, keys } = scoped(context);
    const renderKeys = keys(config.keys);
    return {
      async process(message, nodeContext) {
        const values: Record<string, unknown> = {};
        for (const { space, key } of renderKeys(message, nodeContext)) {
          if (key.endsWith('*')) {
            const found = await cache.getByPrefix(space + key.slice(0, -1));
            for (const [name, value] of Object.entries(found)) values[name.slice(space.length)] = value;
          } else {
            values[key] = (await cache.get(space + key)) ?? null;
          }
        }
        return output(config, message, values);
      },
    };
  },
};

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

export const cacheSetNode: NodeDefinition<z.infer<typeof setSchema>> = {
  type: 'cacheSet',
  label: 'Cache set',
  description: 'Writes cache keys, each with an optional TTL; the message passes on unchanged.',
  category: 'external',
  relations: ['Success', 'Failure'],
  configSchema: setSchema,
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
};

export const cacheDeleteNode: NodeDefinition<z.infer<typeof deleteSchema>> = {
  type: 'cacheDelete',
  label: 'Cache delete',
  description: 'Deletes cache keys (a trailing * deletes every key with that prefix).',
  category: 'external',
  relations: ['Success', 'Failure'],
  configSchema: deleteSchema,
  create(config, context) {
    const { cache, keys } = scoped(context);
    const renderKeys = keys(config.keys);
    return {
      async process(message, nodeContext) {
        for (const { space, key } of renderKeys(message, nodeContext)) {
          if (key.endsWith('*')) await cache.deleteByPrefix(space + key.slice(0, -1));
          else await cache.delete(space + key);
        }
        return [{ relation: 'Success', message }];
      },
    };
  },
};
