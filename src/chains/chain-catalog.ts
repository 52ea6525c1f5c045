// The catalogue of agents and rule chains: files on disk, validated and loaded into the engine. A broken file never
// stops the server; its chain is simply not loaded and its error is shown in the chain's status.
import type { EventBus } from '../cluster/event-bus.ts';
import type { Locks } from '../cluster/locks.ts';
import type { CheckedChain, RuleEngine } from '../engine/engine.ts';
import { newMessage } from '../engine/message.ts';
import type { RunOptions, RunResult } from '../engine/types.ts';
import { AppError, conflict, invalid, notFound } from '../core/errors.ts';
import { isValidId } from '../core/id-schema.ts';
import { KeyedMutex } from '../core/keyed-mutex.ts';
import type { ChainFileStore, ChainLocation } from '../storage/chain-files.ts';
import type { AgentDeletedListener, AgentDirectory } from './agent-directory.ts';
import { redactChainSecrets, restoreChainSecrets } from './chain-secrets.ts';
import type { ChainDefinition, ChainStatus, ChainView } from './chain-view.ts';

export const AGENT_CATEGORY = 'agents';
export const DEFAULT_AGENT_ID = 'main';

export type { ChainStatus, ChainView } from './chain-view.ts';

interface Entry {
  location: ChainLocation;
  /** The definition exactly as stored, or undefined when the file is unreadable. */
  definition: Record<string, unknown> | undefined;
  error: string | undefined;
}

/** Which chains a route may see: agents only, rules of one agent, or any chain. */
export type Scope = { kind: 'agent' } | { kind: 'rule'; agentId: string } | { kind: 'any' };

export interface ListFilter {
  agentId?: string | undefined;
  category?: string | undefined;
  loaded?: boolean | undefined;
}

function categoryOf(definition: Record<string, unknown> | undefined): string | undefined {
  const ruleChain = definition?.['ruleChain'] as { additionalInfo?: { category?: unknown } } | undefined;
  const category = ruleChain?.additionalInfo?.category;
  return typeof category === 'string' ? category : undefined;
}

function idOf(body: unknown): string | undefined {
  const id = (body as { ruleChain?: { id?: unknown } } | null)?.ruleChain?.id;
  return typeof id === 'string' ? id : undefined;
}

export class ChainCatalog {
  private readonly entries = new Map<string, Entry>();
  private readonly deletedListeners: AgentDeletedListener[] = [];
  private readonly writes = new KeyedMutex();
  /** Clustered mode: other instances write the same files. */
  private shared: { locks: Locks; bus: EventBus } | undefined;
  /** The narrow view of this catalogue that turns, the scheduler and channels use. */
  readonly agents: AgentDirectory = {
    get: (agentId) => this.get(agentId, { kind: 'agent' }),
    require: (agentId) => this.requireRunnableAgent(agentId),
    list: () => this.list({ kind: 'agent' }),
    run: (chainId, data, metadata, options) => this.execute(chainId, data, metadata, options),
    onDeleted: (listener) => this.onAgentDeleted(listener),
  };

  constructor(
    private readonly engine: RuleEngine,
    private readonly files: ChainFileStore,
    private readonly defaultAgent: () => Record<string, unknown>,
  ) {}

  onAgentDeleted(listener: AgentDeletedListener): void {
    this.deletedListeners.push(listener);
  }

  /** Loads every chain file on disk, and creates the default agent when it does not exist. */
  async init(): Promise<void> {
    const locations = await this.files.scan();
    if (!locations.some((l) => l.kind === 'agent' && l.id === DEFAULT_AGENT_ID)) {
      const location = this.files.locate(DEFAULT_AGENT_ID, 'agent', DEFAULT_AGENT_ID);
      await this.files.write(location, this.defaultAgent());
      locations.push(location);
    }
    for (const location of locations) {
      if (this.entries.has(location.id)) {
        const first = this.entries.get(location.id);
        this.entries.set(`${location.id}@${location.path}`, {
          location,
          definition: undefined,
          error: `duplicate chain id "${location.id}": already defined in ${first ? this.files.display(first.location) : 'another file'}`,
        });
        continue;
      }
      await this.loadFromDisk(location);
    }
  }

  private async loadFromDisk(location: ChainLocation): Promise<Entry> {
    const file = await this.files.read(location);
    const entry: Entry = {
      location,
      definition: (file.json ?? undefined) as Record<string, unknown> | undefined,
      error: file.error,
    };
    if (!entry.error) {
      try {
        if (idOf(file.json) !== location.id)
          throw invalid(`ruleChain.id must be "${location.id}" to match the file name`);
        await this.engine.load(file.json);
      } catch (error) {
        entry.error = error instanceof Error ? error.message : String(error);
      }
    }
    this.entries.set(location.id, entry);
    return entry;
  }

  private view(entry: Entry): ChainView {
    const definition = entry.definition ?? {
      ruleChain: { id: entry.location.id, name: entry.location.id },
      metadata: { nodes: [], connections: [] },
    };
    const status: ChainStatus = { loaded: this.engine.isLoaded(entry.location.id) };
    if (entry.error) status.error = entry.error;
    const problems = this.engine.problemsOf(entry.location.id);
    if (problems.length > 0) status.problems = problems;
    if (entry.location.agentId) status.agentId = entry.location.agentId;
    return { ...(redactChainSecrets(definition) as ChainDefinition), status };
  }

  private inScope(entry: Entry, scope: Scope): boolean {
    if (scope.kind === 'any') return true;
    if (scope.kind === 'agent') return entry.location.kind === 'agent';
    return entry.location.kind === 'rule' && entry.location.agentId === scope.agentId;
  }

  private find(id: string, scope: Scope): Entry {
    if (!isValidId(id)) throw invalid(`invalid id "${id}": use 1-64 letters, digits, "-" or "_"`);
    const entry = this.entries.get(id);
    if (!entry || !this.inScope(entry, scope)) {
      throw notFound(scope.kind === 'agent' ? `agent "${id}" not found` : `rule chain "${id}" not found`);
    }
    return entry;
  }

  private requireAgent(agentId: string): void {
    this.find(agentId, { kind: 'agent' });
  }

  list(scope: Scope, filter: ListFilter = {}): ChainView[] {
    if (scope.kind === 'rule') this.requireAgent(scope.agentId);
    return [...this.entries.values()]
      .filter((entry) => this.inScope(entry, scope))
      .filter((entry) => filter.agentId === undefined || entry.location.agentId === filter.agentId)
      .filter((entry) => filter.category === undefined || categoryOf(entry.definition) === filter.category)
      .filter(
        (entry) => filter.loaded === undefined || this.engine.isLoaded(entry.location.id) === filter.loaded,
      )
      .sort((a, b) => a.location.id.localeCompare(b.location.id))
      .map((entry) => this.view(entry));
  }

  get(id: string, scope: Scope): ChainView {
    if (scope.kind === 'rule') this.requireAgent(scope.agentId);
    return this.view(this.find(id, scope));
  }

  has(id: string): boolean {
    return this.entries.has(id);
  }

  /**
   * Compiles the whole definition (its one check); the stored file keeps every key the caller sent.
   * Secrets sent back as views show them (`***`) keep the values stored in `stored`.
   */
  private async prepare(
    input: unknown,
    kind: 'agent' | 'rule',
    stored?: Record<string, unknown>,
  ): Promise<CheckedChain> {
    const body = restoreChainSecrets(input, stored);
    if (kind === 'agent' && body && typeof body === 'object') {
      const ruleChain = (body as { ruleChain?: Record<string, unknown> }).ruleChain;
      if (ruleChain && typeof ruleChain === 'object') {
        const info = (ruleChain['additionalInfo'] ?? {}) as Record<string, unknown>;
        ruleChain['additionalInfo'] = { ...info, category: AGENT_CATEGORY };
      }
    }
    return this.engine.compile(body);
  }

  /** Saves a compiled chain with `save`, then installs it; a failed save drops it. */
  private async commit(chain: CheckedChain, save: () => Promise<void>): Promise<void> {
    try {
      await save();
    } catch (error) {
      await this.engine.discard(chain);
      throw error;
    }
    await this.engine.install(chain);
  }

  create(body: unknown, scope: Scope): Promise<ChainView> {
    return this.serialize(idOf(body), 'saved', async () => {
      const kind = scope.kind === 'agent' ? 'agent' : 'rule';
      const agentId = scope.kind === 'rule' ? scope.agentId : undefined;
      if (agentId) this.requireAgent(agentId);
      const chain = await this.prepare(body, kind);
      const { definition } = chain;
      const id = definition.ruleChain.id;
      const location = this.files.locate(id, kind, kind === 'agent' ? id : agentId);
      await this.commit(chain, async () => {
        const existing = this.entries.get(id);
        if (existing) {
          const what = existing.location.kind === 'agent' ? 'an agent' : 'a rule chain';
          throw conflict(`id "${id}" is already used by ${what}`);
        }
        await this.files.write(location, definition);
      });
      const entry: Entry = { location, definition, error: undefined };
      this.entries.set(id, entry);
      return this.view(entry);
    });
  }

  update(id: string, body: unknown, scope: Scope): Promise<ChainView> {
    return this.serialize(id, 'saved', async () => {
      if (scope.kind === 'rule') this.requireAgent(scope.agentId);
      const entry = this.find(id, scope);
      const bodyId = idOf(body);
      if (bodyId !== undefined && bodyId !== id) {
        throw invalid(`ruleChain.id "${bodyId}" does not match the id in the path "${id}"`);
      }
      const chain = await this.prepare(body, entry.location.kind, entry.definition);
      const { definition } = chain;
      await this.commit(chain, () => this.files.write(entry.location, definition));
      entry.definition = definition;
      entry.error = undefined;
      return this.view(entry);
    });
  }

  remove(id: string, scope: Scope): Promise<void> {
    return this.serialize(id, 'removed', async () => {
      if (scope.kind === 'rule') this.requireAgent(scope.agentId);
      const entry = this.find(id, scope);
      if (entry.location.kind === 'agent' && id === DEFAULT_AGENT_ID) {
        throw conflict(`the default agent "${DEFAULT_AGENT_ID}" cannot be deleted`);
      }
      await this.unloadWithOwned(entry);
      await this.files.remove(entry.location);
      if (entry.location.kind === 'agent') for (const listener of this.deletedListeners) await listener(id);
    });
  }

  /** Unloads a chain and, for an agent, the chains it owns. */
  private async unloadWithOwned(entry: Entry): Promise<void> {
    const id = entry.location.id;
    const owned =
      entry.location.kind === 'agent'
        ? [...this.entries.values()].filter((e) => e.location.kind === 'rule' && e.location.agentId === id)
        : [];
    for (const chain of [entry, ...owned]) {
      await this.engine.unload(chain.location.id);
      this.engine.runLogs.clear(chain.location.id);
      this.entries.delete(chain.location.id);
    }
  }

  /** Re-reads the file; a broken definition is refused with 400 and the running chain keeps serving. */
  reload(id: string, scope: Scope): Promise<ChainView> {
    return this.serialize(id, 'saved', async () => {
      if (scope.kind === 'rule') this.requireAgent(scope.agentId);
      if (!isValidId(id)) throw invalid(`invalid id "${id}": use 1-64 letters, digits, "-" or "_"`);
      let entry = this.entries.get(id);
      if (!entry) {
        // A file dropped in by hand: find it on disk.
        const location = (await this.files.scan()).find((l) => l.id === id);
        if (!location) throw notFound(`rule chain "${id}" not found`);
        entry = { location, definition: undefined, error: undefined };
      }
      if (!this.inScope(entry, scope)) throw notFound(`rule chain "${id}" not found`);
      const file = await this.files.read(entry.location);
      if (file.error) {
        entry.error = file.error;
        this.entries.set(id, entry);
        throw invalid(file.error);
      }
      try {
        if (idOf(file.json) !== id) throw invalid(`ruleChain.id must be "${id}" to match the file name`);
        const chain = await this.engine.compile(file.json);
        await this.engine.install(chain);
        entry.definition = chain.definition;
        entry.error = undefined;
      } catch (error) {
        entry.error = error instanceof Error ? error.message : String(error);
        if (!entry.definition) entry.definition = file.json as Record<string, unknown>;
        this.entries.set(id, entry);
        throw error instanceof AppError ? error : invalid(entry.error);
      }
      this.entries.set(id, entry);
      return this.view(entry);
    });
  }

  /** An agent that can take a turn: unknown is a 404, not loaded a 409. */
  requireRunnableAgent(agentId: string): void {
    if (!isValidId(agentId)) throw notFound(`agent "${agentId}" not found`);
    const entry = this.find(agentId, { kind: 'agent' });
    if (!this.engine.isLoaded(agentId)) {
      throw conflict(`agent "${agentId}" is not loaded${entry.error ? `: ${entry.error}` : ''}`);
    }
  }

  /** Runs a loaded chain once. Unknown: 404; known but not loaded: 409. */
  async execute(
    id: string,
    data: string | object,
    metadata: Record<string, string>,
    options: RunOptions,
    messageType = '',
  ): Promise<RunResult> {
    const entry = this.find(id, { kind: 'any' });
    if (!this.engine.isLoaded(id)) {
      throw conflict(`rule chain "${id}" is not loaded${entry.error ? `: ${entry.error}` : ''}`);
    }
    const message = newMessage(data, { metadata, type: messageType });
    return this.engine.execute(id, message, options);
  }

  /**
   * Clustered mode: the chain files are shared. A change holds the cluster-wide lock, starts from
   * the file as the last writer left it, and tells the other instances, which load it in turn.
   */
  share(cluster: { locks: Locks; bus: EventBus }): void {
    this.shared = cluster;
    cluster.bus.subscribe(async (event) => {
      if (event.type === 'chain') await this.writes.run('chains', () => this.syncFromDisk(event.id));
      if (event.type === 'resync') await this.writes.run('chains', () => this.syncAll());
    });
  }

  /**
   * Changes to chains run one at a time, so a file and the engine never disagree; clustered, one at
   * a time across instances, and announced once done.
   */
  private async serialize<T>(
    id: string | undefined,
    change: 'saved' | 'removed',
    work: () => Promise<T>,
  ): Promise<T> {
    const shared = this.shared;
    if (!shared) return this.writes.run('chains', work);
    const result = await shared.locks.run('chains', () =>
      this.writes.run('chains', async () => {
        if (id !== undefined) await this.syncFromDisk(id);
        return work();
      }),
    );
    if (id !== undefined) await shared.bus.publish({ type: 'chain', id, change });
    return result;
  }

  /** Brings one chain in line with its file, which another instance may have written or removed. */
  private async syncFromDisk(id: string, scanned?: ChainLocation[]): Promise<void> {
    if (!isValidId(id)) return;
    const known = this.entries.get(id);
    const location = (scanned ?? (await this.files.scan())).find((l) => l.id === id);
    if (!location) {
      if (!known) return;
      await this.unloadWithOwned(known);
      if (known.location.kind === 'agent') for (const listener of this.deletedListeners) await listener(id);
      return;
    }
    if (known && known.location.path === location.path && !known.error) {
      const file = await this.files.read(location);
      if (!file.error && JSON.stringify(file.json) === JSON.stringify(known.definition)) return;
    }
    await this.loadFromDisk(location);
  }

  /** After missed notifications: every chain in line with the files. */
  private async syncAll(): Promise<void> {
    const scanned = await this.files.scan();
    const ids = new Set([...scanned.map((l) => l.id), ...this.entries.keys()]);
    for (const id of ids) await this.syncFromDisk(id, scanned);
  }
}
