// `config get|set|list|reload`: the server's configuration through GET/PUT /config.
import type { Command } from 'commander';
import { CliError, usageError } from '../errors.ts';
import { withJson, type Context } from '../context.ts';
import type { ConfigUpdateAnswer } from '../../resources/config/config.schema.ts';

function lookup(tree: unknown, key: string): unknown {
  let node = tree;
  for (const step of key.split('.')) {
    if (node === null || typeof node !== 'object' || !Object.hasOwn(node, step)) return undefined;
    node = (node as Record<string, unknown>)[step];
  }
  return node;
}

/** `key = value` lines of a tree, in the order of the file. */
function flatten(tree: unknown, prefix: string): string[] {
  if (tree === null || typeof tree !== 'object' || (Array.isArray(tree) && tree.length === 0))
    return [`${prefix} = ${JSON.stringify(tree)}`];
  if (Array.isArray(tree)) return [`${prefix} = ${JSON.stringify(tree)}`];
  const entries = Object.entries(tree);
  if (entries.length === 0) return [`${prefix} = {}`];
  return entries.flatMap(([key, value]) => flatten(value, prefix ? `${prefix}.${key}` : key));
}

/** A value as typed: JSON when it parses (true, 42, ["a"]), else the text itself. */
export function parseValue(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function patchFor(key: string, value: unknown): Record<string, unknown> {
  const steps = key.split('.');
  if (steps.some((step) => step === '')) throw usageError(`"${key}" is not a config key (use section.key)`);
  const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
  if (steps.length === 1 && steps[0] !== 'bindings' && !isObject)
    throw usageError(`"${key}" is a section: give a key in it, or a JSON object`);
  return steps.reduceRight<unknown>((inner, step) => ({ [step]: inner }), value) as Record<string, unknown>;
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
}

export function registerConfig(program: Command, cx: Context): void {
  const config = program
    .command('config')
    .description('read and change the server configuration (secrets are never shown)');

  withJson(
    config
      .command('get')
      .description('print one value, e.g. server.port')
      .argument('<key>', 'dotted key, e.g. security.requireAuth'),
  ).action(async (key: string, options: { json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const value = lookup(await api.get('/config'), key);
    if (value === undefined)
      throw new CliError(`config key "${key}" not found (see: agent-service config list)`);
    cx.print(options.json, value, () => `${show(value)}\n`);
  });

  config
    .command('set')
    .description('change one value; JSON values (true, 42, ["a"]) are parsed, anything else is text')
    .argument('<key>', 'dotted key, e.g. server.log_level')
    .argument('<value>', 'new value')
    .addHelpText(
      'after',
      '\nExamples:\n  agent-service config set security.requireAuth true\n  agent-service config set models.default_provider openai',
    )
    .action(async (key: string, value: string, _options: unknown, command: Command) => {
      const api = await cx.api(command);
      const answer = await api.json<ConfigUpdateAnswer>('PUT', '/config', {
        body: patchFor(key, parseValue(value)),
      });
      cx.ok(`${key}: ${answer.message}`);
    });

  withJson(
    config
      .command('list')
      .description('print the configuration, or one section of it')
      .argument('[section]', 'a section (server, data, models, security, ...) or any dotted key'),
  ).action(async (section: string | undefined, options: { json?: boolean }, command: Command) => {
    const api = await cx.api(command);
    const tree = await api.get<Record<string, unknown>>('/config');
    const value = section ? lookup(tree, section) : tree;
    if (value === undefined) throw new CliError(`config section "${section}" not found`);
    cx.print(options.json, value, () => `${flatten(value, section ?? '').join('\n')}\n`);
  });

  config
    .command('reload')
    .description('re-read the config file after editing it by hand')
    .action(async (_options: unknown, command: Command) => {
      const api = await cx.api(command);
      const answer = await api.json<ConfigUpdateAnswer>('POST', '/config/reload');
      cx.ok(answer.message);
    });
}
