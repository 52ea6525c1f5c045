// The live configuration: the YAML document as the user wrote it (comments, layout, ${NAME}
// references) plus the validated, substituted values. Every write goes through update(), which
// validates the whole result before the file is rewritten atomically.
import { readFile } from 'node:fs/promises';
import { isMap, isNode, isScalar, type Document } from 'yaml';
import type { EventBus } from '../cluster/event-bus.ts';
import type { Locks } from '../cluster/locks.ts';
import { writeFileAtomic } from '../core/atomic-write.ts';
import { KeyedMutex } from '../core/keyed-mutex.ts';
import { AppError } from '../core/errors.ts';
import { hasReference } from './env-substitution.ts';
import { ConfigError, parseConfigText, type Env } from './load.ts';
import type { Config } from './schema.ts';

export type ConfigListener = (config: Config, previous: Config) => void | Promise<void>;
/** A check beyond the schema (a channel platform's account fields): one problem a line. */
export type ConfigCheck = (config: Config) => string[];
export type Path = Array<string | number>;

/** Applies changes to a cloned document; `set` keeps ${NAME} references whose value is unchanged. */
export interface DocumentEditor {
  set(path: Path, value: unknown): void;
  delete(path: Path): void;
  /** Deep-merges a plain object at path: objects recurse, anything else replaces, null deletes. */
  merge(path: Path, patch: Record<string, unknown>): void;
  get(path: Path): unknown;
}

export class ConfigStore {
  private doc: Document;
  private config: Config;
  private readonly listeners: ConfigListener[] = [];
  private readonly checks: ConfigCheck[] = [];
  private readonly writes = new KeyedMutex();
  /** Clustered mode: other instances write the same file. */
  private shared: { locks: Locks; bus: EventBus } | undefined;
  /** The file's text as this instance last wrote or read it (clustered mode). */
  private lastText: string | undefined;

  constructor(
    readonly path: string,
    parsed: { doc: Document; config: Config },
    private readonly env: Env,
    /** Flag and environment overrides: applied over the file, never written back. */
    private readonly overrides: (config: Config) => Config = (c) => c,
  ) {
    this.doc = parsed.doc;
    this.config = overrides(parsed.config);
  }

  get current(): Config {
    return this.config;
  }

  onChange(listener: ConfigListener): void {
    this.listeners.push(listener);
  }

  /** Adds a check that every write and reload must pass, besides the schema. */
  addCheck(check: ConfigCheck): void {
    this.checks.push(check);
  }

  /**
   * Clustered mode: the file is shared. A write holds the cluster-wide lock, starts from the file as
   * the last writer left it, and tells the other instances, which reload it.
   */
  share(cluster: { locks: Locks; bus: EventBus }): void {
    this.shared = cluster;
    cluster.bus.subscribe(async (event) => {
      if (event.type === 'config' || event.type === 'resync')
        await this.serialize(() => this.readFromDisk({ unlessUnchanged: true }));
    });
  }

  /** Edits the document, validates the whole result, writes it atomically, then notifies listeners. */
  async update(edit: (editor: DocumentEditor, current: Config) => void): Promise<Config> {
    const shared = this.shared;
    if (!shared) return this.serialize(() => this.write(edit));
    const config = await shared.locks.run('config', () =>
      this.serialize(async () => {
        await this.readFromDisk({ unlessUnchanged: true });
        return this.write(edit);
      }),
    );
    await shared.bus.publish({ type: 'config' });
    return config;
  }

  private async write(edit: (editor: DocumentEditor, current: Config) => void): Promise<Config> {
    const clone = this.doc.clone();
    edit(createEditor(clone, this.config), this.config);
    const text = clone.toString();
    const parsed = this.parse(text);
    await writeFileAtomic(this.path, text, { mode: 0o600 });
    this.lastText = text;
    await this.swap(parsed.doc, parsed.config);
    return this.config;
  }

  /** Re-reads the file from disk; a broken file is refused and the running config is kept. */
  async reload(): Promise<Config> {
    const config = await this.serialize(() => this.readFromDisk());
    // Clustered: a file edited by hand is shared too, so the other instances reload it as well.
    await this.shared?.bus.publish({ type: 'config' });
    return config;
  }

  /** Loads the file (edited by hand, or written by another instance); a broken one is refused. */
  private async readFromDisk(options: { unlessUnchanged?: boolean } = {}): Promise<Config> {
    const text = await readFile(this.path, 'utf8');
    if (options.unlessUnchanged && text === this.lastText) return this.config;
    const parsed = this.parse(text);
    this.lastText = text;
    await this.swap(parsed.doc, parsed.config);
    return this.config;
  }

  private parse(text: string): { doc: Document; config: Config } {
    let parsed: { doc: Document; config: Config };
    try {
      parsed = parseConfigText(text, this.path, this.env);
    } catch (error) {
      if (error instanceof ConfigError) throw new AppError('invalid', error.problems.join('; '));
      throw error;
    }
    const problems = this.checks.flatMap((check) => check(parsed.config));
    if (problems.length > 0) throw new AppError('invalid', problems.join('; '));
    return parsed;
  }

  private async swap(doc: Document, config: Config): Promise<void> {
    const previous = this.config;
    this.doc = doc;
    this.config = this.overrides(config);
    for (const listener of this.listeners) await listener(this.config, previous);
  }

  /** Updates and reloads run one at a time, each on the result of the one before. */
  private serialize<T>(work: () => Promise<T>): Promise<T> {
    return this.writes.run('config', work);
  }
}

function readPath(tree: unknown, path: Path): unknown {
  let node = tree;
  for (const step of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[step];
  }
  return node;
}

function createEditor(doc: Document, substituted: Config): DocumentEditor {
  const editor: DocumentEditor = {
    get: (path) => readPath(doc.toJS(), path),
    delete: (path) => {
      if (doc.hasIn(path)) doc.deleteIn(path);
    },
    set(path, value) {
      const current = doc.getIn(path, true);
      // Keep a ${NAME} reference when the caller sends back the value it already resolves to.
      if (
        isScalar(current) &&
        typeof current.value === 'string' &&
        hasReference(current.value) &&
        readPath(substituted, path) === value
      ) {
        return;
      }
      if (isScalar(current) && current.value === value) return;
      ensureParents(doc, path);
      // A node, not a plain object: setIn below a plain object (the first account of a platform
      // whose section was just created) would throw.
      doc.setIn(path, isNode(value) ? value : doc.createNode(value));
    },
    merge(path, patch) {
      for (const [key, value] of Object.entries(patch)) {
        const child = [...path, key];
        if (value === null) editor.delete(child);
        else if (typeof value === 'object' && !Array.isArray(value) && isMap(doc.getIn(child, true))) {
          editor.merge(child, value as Record<string, unknown>);
        } else editor.set(child, value);
      }
    },
  };
  return editor;
}

/** Replaces flow-style `{}` parents so new keys are written in block style, like the rest of the file. */
function ensureParents(doc: Document, path: Path): void {
  for (let i = 1; i < path.length; i++) {
    const parent = doc.getIn(path.slice(0, i), true);
    if (isMap(parent) && parent.flow && parent.items.length === 0) parent.flow = false;
  }
}
