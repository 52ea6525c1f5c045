// Finding, creating, parsing and validating the config file. User mistakes become ConfigError with
// one line per problem (key path and file line); they are printed without a stack trace.
import { readFile, access } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import type { z } from 'zod';
import { writeFileAtomic } from '../core/atomic-write.ts';
import { DEFAULT_CONFIG_TEXT } from './default-config.ts';
import { substituteTree, type SubstitutionProblem } from './env-substitution.ts';
import { configSchema, type Config } from './schema.ts';

export class ConfigError extends Error {
  readonly problems: string[];

  constructor(file: string, problems: string[]) {
    super(`invalid configuration in ${file}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export type Env = Record<string, string | undefined>;

export interface ParsedConfig {
  doc: Document;
  config: Config;
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

/**
 * Discovery order: --config, ./config.yaml, ./config.yml, ./configs/config.yaml, ~/.agent-service/config.yaml.
 * Returns the path to use and whether it must be created.
 */
export async function discoverConfigPath(
  explicit: string | undefined,
  cwd: string,
  home: string = homedir(),
): Promise<{ path: string; exists: boolean }> {
  if (explicit) {
    const path = resolve(cwd, explicit);
    return { path, exists: await exists(path) };
  }
  const candidates = [
    join(cwd, 'config.yaml'),
    join(cwd, 'config.yml'),
    join(cwd, 'configs', 'config.yaml'),
    join(cwd, 'configs', 'config.yml'),
    join(home, '.agent-service', 'config.yaml'),
  ];
  for (const path of candidates) {
    if (await exists(path)) return { path, exists: true };
  }
  return { path: join(cwd, 'config.yaml'), exists: false };
}

export async function writeDefaultConfig(path: string): Promise<void> {
  await writeFileAtomic(path, DEFAULT_CONFIG_TEXT, { mode: 0o600 });
}

function lineOf(doc: Document, counter: LineCounter, path: ReadonlyArray<PropertyKey>, key?: string): number {
  let node: unknown = doc.contents;
  let line = 1;
  const steps = key === undefined ? path : [...path, key];
  for (const step of steps) {
    if (!isMap(node) && !(node && typeof node === 'object' && 'items' in node)) break;
    const items = (node as { items: unknown[] }).items;
    let next: unknown;
    if (isMap(node)) {
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === String(step));
      if (!pair) break;
      const keyNode = pair.key as { range?: [number, number, number] };
      if (keyNode.range) line = counter.linePos(keyNode.range[0]).line;
      next = pair.value;
    } else {
      next = items[Number(step)];
      const range = (next as { range?: [number, number, number] } | undefined)?.range;
      if (range) line = counter.linePos(range[0]).line;
    }
    node = next;
  }
  return line;
}

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  return path.map(String).join('.') || '(root)';
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'unrecognized_keys') return 'unknown key';
  if (issue.code === 'invalid_type') return `expected ${issue.expected}`;
  // A record key that fails its schema: say why, not only that it is invalid.
  if (issue.code === 'invalid_key') return issue.issues[0]?.message ?? issue.message;
  return issue.message;
}

/** Paths of every `__proto__` key: as a plain object key it would replace the prototype. */
function protoKeyPaths(tree: unknown, path: Array<string | number>): Array<Array<string | number>> {
  if (tree === null || typeof tree !== 'object') return [];
  const found: Array<Array<string | number>> = [];
  for (const [key, value] of Object.entries(tree)) {
    const child = [...path, Array.isArray(tree) ? Number(key) : key];
    if (key === '__proto__') found.push(child);
    else found.push(...protoKeyPaths(value, child));
  }
  return found;
}

/** Parses config text: YAML, then env substitution on the tree, then schema validation. */
export function parseConfigText(text: string, file: string, env: Env): ParsedConfig {
  const counter = new LineCounter();
  const doc = parseDocument(text, { lineCounter: counter, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length > 0) {
    throw new ConfigError(
      file,
      doc.errors.map((error) => {
        const line = counter.linePos(error.pos[0]).line;
        return `line ${line}: YAML syntax error: ${error.message.split('\n')[0]}`;
      }),
    );
  }
  const raw = doc.toJS() ?? {};
  const reserved = protoKeyPaths(raw, []);
  if (reserved.length > 0) {
    throw new ConfigError(
      file,
      reserved.map(
        (path) =>
          `${formatPath(path)} (line ${lineOf(doc, counter, path.slice(0, -1), '__proto__')}): key "__proto__" is not allowed`,
      ),
    );
  }
  const missing: SubstitutionProblem[] = [];
  const substituted = substituteTree(raw, env, missing);
  if (missing.length > 0) {
    throw new ConfigError(
      file,
      missing.map(
        (m) =>
          `${formatPath(m.path)} (line ${lineOf(doc, counter, m.path)}): environment variable ${m.variable} is not set and has no default`,
      ),
    );
  }
  const result = configSchema.safeParse(substituted);
  if (!result.success) {
    const problems: string[] = [];
    for (const issue of result.error.issues) {
      if (issue.code === 'unrecognized_keys') {
        for (const key of issue.keys) {
          const path = [...issue.path, key];
          problems.push(`${formatPath(path)} (line ${lineOf(doc, counter, issue.path, key)}): unknown key`);
        }
      } else {
        problems.push(
          `${formatPath(issue.path)} (line ${lineOf(doc, counter, issue.path)}): ${describeIssue(issue)}`,
        );
      }
    }
    throw new ConfigError(file, problems);
  }
  return { doc, config: resolvePaths(result.data, dirname(file)) };
}

/** Relative paths in the config resolve against the config file's folder. */
function resolvePaths(config: Config, base: string): Config {
  const at = (path: string): string => (isAbsolute(path) ? path : resolve(base, path));
  return { ...config, data: { ...config.data, root_dir: at(config.data.root_dir), logs_dir: at(config.data.logs_dir) } };
}

export async function loadConfigFile(path: string, env: Env): Promise<ParsedConfig> {
  const text = await readFile(path, 'utf8');
  return parseConfigText(text, path, env);
}
