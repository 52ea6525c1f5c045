// The rule engine: loaded chains by id, hot reload, and runs. A reload builds the whole new chain
// before swapping it in; runs already under way finish on the chain they started with, whose node
// instances are destroyed when the last of those runs ends.
import { AppError } from '../core/errors.ts';
import { buildChain, destroyChain } from './chain.ts';
import type { ChainNode, CompiledChain } from './chain.ts';
import { parseRuleChain } from './dsl.ts';
import type { RuleChainDefinition } from './dsl.ts';
import type { NodeRegistry } from './registry.ts';
import { ChainRun } from './run.ts';
import { ScriptPool, workerHeapMbFor } from './sandbox/script-pool.ts';
import { RunBudget } from './run-budget.ts';
import type { RunLimits } from './run-budget.ts';
import type { RunScope } from './run-context.ts';
import type { RunHost } from './run.ts';
import { RunLogStore } from './run-log.ts';
import type { RunObserver } from './run-observer.ts';
import { outputsOfRun } from './run-outputs.ts';
import type { NodeOutput, NodeServices, RuleMessage, RunOptions, RunResult } from './types.ts';

export interface RuleEngineOptions {
  registry: NodeRegistry;
  services: NodeServices;
  /** How long a join waits when its node sets no timeout; default 5000 ms. */
  joinTimeoutMs?: number;
  /** How deep flow and tool chain calls may nest; default 16. */
  maxDepth?: number;
  /**
   * Node executions (and `for` iterations) one run may make, its nested runs included; default
   * 10,000. Past it the run fails with a too-large error (a 413 over HTTP).
   */
  maxNodeExecutions?: number;
  /** Branches the outputs of one node execution may start; default 1,000. */
  maxFanOut?: number;
  /** Node executions between two turns of the event loop, so timers and aborts fire; default 100. */
  yieldEvery?: number;
  /** Told of every run and node run (metrics, traces, live chain subscriptions). */
  observer?: RunObserver;
}

/** A definition compiled by `compile`: to be installed or discarded, once. */
export interface CheckedChain {
  readonly definition: RuleChainDefinition;
  readonly compiled: CompiledChain;
  /** Its place in the order of loads and unloads (see `applied`). */
  readonly ticket: number;
}

interface LoadedChain {
  compiled: CompiledChain;
  inFlight: number;
  retired: boolean;
}

export class RuleEngine {
  private readonly registry: NodeRegistry;
  private readonly services: NodeServices;
  private readonly maxDepth: number;
  private readonly limits: RunLimits;
  private readonly observer: RunObserver | undefined;
  private readonly chains = new Map<string, LoadedChain>();
  /** Ids whose latest definition is disabled: validated and kept out of service. */
  private readonly disabled = new Set<string>();
  /** Sequence number of the last load or unload applied per id, so a slow older load cannot win. */
  private readonly applied = new Map<string, number>();
  private sequence = 0;
  private closed = false;
  private readonly host: RunHost;
  /** Told of every chain put in service (its definition) or taken out of it (undefined): endpoints. */
  private readonly listeners = new Set<(id: string, definition: RuleChainDefinition | undefined) => void>();
  /** Logs of recent runs of chains with `debugMode` nodes. */
  readonly runLogs = new RunLogStore();
  /** The script pool this engine made, and so closes; undefined when the caller supplied one. */
  private readonly ownPool: ScriptPool | undefined;

  constructor(options: RuleEngineOptions) {
    this.registry = options.registry;
    this.observer = options.observer;
    const { scriptPool, scriptWorkers, scriptMemoryBytes } = options.services;
    const pool =
      scriptPool ??
      new ScriptPool({
        workerHeapMb: workerHeapMbFor(scriptMemoryBytes),
        ...(scriptWorkers === undefined ? {} : { workers: scriptWorkers }),
      });
    this.ownPool = scriptPool ? undefined : pool;
    this.services = { ...options.services, scriptPool: pool };
    this.maxDepth = options.maxDepth ?? 16;
    this.limits = {
      maxNodeExecutions: options.maxNodeExecutions ?? 10_000,
      maxFanOut: options.maxFanOut ?? 1_000,
      yieldEvery: options.yieldEvery ?? 100,
    };
    const joinTimeoutMs = options.joinTimeoutMs ?? 5000;
    this.host = {
      joinTimeoutMs,
      runChain: (chainId, message, scope) => this.runChain(chainId, message, scope),
      // A body run inside a running chain: the outer run already holds the chain in service.
      runFrom: (chain, node, message, scope) => this.startRun(chain, node, message, scope, () => undefined),
      recordRun: (log) => this.runLogs.add(log),
      runChainNode: (chainId, nodeId, message, scope, all) =>
        this.runChainNode(chainId, nodeId, message, scope, all),
    };
  }

  /** Calls `listener` after each load (the definition in service) and unload (undefined); returns a remover. */
  onChainChange(listener: (id: string, definition: RuleChainDefinition | undefined) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(id: string, definition: RuleChainDefinition | undefined): void {
    for (const listener of this.listeners) {
      try {
        listener(id, definition);
      } catch {
        // A listener's failure is its own (it logs); the chain stays loaded.
      }
    }
  }

  /**
   * Parses a definition and builds every node: the whole check of a definition, done once. The
   * result is put in service by `install` or dropped by `discard`, so a save checks and installs
   * with one build.
   */
  async compile(definition: unknown): Promise<CheckedChain> {
    if (this.closed) throw new AppError('unavailable', 'rule engine is closed');
    const parsed = parseRuleChain(definition);
    const ticket = ++this.sequence;
    return { definition: parsed, compiled: await buildChain(parsed, this.registry, this.services), ticket };
  }

  /** Drops a compiled chain that is not going to be installed (its save failed). */
  async discard(chain: CheckedChain): Promise<void> {
    await destroyChain(chain.compiled);
  }

  /** Parses and fully checks a definition, building (then destroying) every node. */
  async validate(definition: unknown): Promise<RuleChainDefinition> {
    const chain = await this.compile(definition);
    await this.discard(chain);
    return chain.definition;
  }

  /** Compiles a definition and installs it (see `install`). */
  async load(definition: unknown): Promise<void> {
    await this.install(await this.compile(definition));
  }

  /**
   * Swaps a compiled chain in; the old one serves until then, and its runs finish on it. A
   * `disabled` chain is checked like any other but not put in service: a loaded version of it is
   * unloaded, and running it answers not-found "is disabled". A chain compiled before a later
   * load or unload of its id was applied is dropped, so a slow older save cannot win.
   */
  async install(chain: CheckedChain): Promise<void> {
    const { definition: parsed, compiled, ticket } = chain;
    const id = parsed.ruleChain.id;
    if (this.closed || (this.applied.get(id) ?? 0) > ticket) {
      await destroyChain(compiled);
      return;
    }
    this.applied.set(id, ticket);
    const previous = this.chains.get(id);
    if (parsed.ruleChain.disabled === true) {
      await destroyChain(compiled);
      this.chains.delete(id);
      this.disabled.add(id);
    } else {
      this.chains.set(id, { compiled, inFlight: 0, retired: false });
      this.disabled.delete(id);
      for (const node of compiled.nodes.values()) node.instance.start?.();
    }
    this.changed(id, parsed.ruleChain.disabled === true ? undefined : parsed);
    if (previous) await this.retire(previous);
  }

  /** Takes a chain out of service; runs under way finish first. False when it was not loaded. */
  async unload(id: string): Promise<boolean> {
    this.applied.set(id, ++this.sequence);
    this.disabled.delete(id);
    const loaded = this.chains.get(id);
    if (!loaded) return false;
    this.chains.delete(id);
    this.changed(id, undefined);
    await this.retire(loaded);
    return true;
  }

  isLoaded(id: string): boolean {
    return this.chains.has(id);
  }

  loadedIds(): string[] {
    return [...this.chains.keys()];
  }

  /** What the nodes of a loaded chain report as wrong now, each prefixed with its node. */
  problemsOf(id: string): string[] {
    const loaded = this.chains.get(id);
    if (!loaded) return [];
    return [...loaded.compiled.nodes.values()].flatMap((node) =>
      (node.instance.problems?.() ?? []).map((problem) => `node "${node.id}": ${problem}`),
    );
  }

  /** The definition of a loaded chain, as it was loaded. */
  definitionOf(id: string): RuleChainDefinition | undefined {
    return this.chains.get(id)?.compiled.definition;
  }

  /**
   * Destroys every chain now, including ones with runs under way, and ends the script workers; the
   * engine refuses work after.
   */
  async close(): Promise<void> {
    this.closed = true;
    const loaded = [...this.chains.values()];
    this.chains.clear();
    this.disabled.clear();
    await Promise.all(loaded.map((chain) => destroyChain(chain.compiled)));
    await this.ownPool?.close();
  }

  /** Runs a chain; the run and every run it starts share one budget (see run-budget.ts). */
  execute(chainId: string, message: RuleMessage, options: RunOptions = {}): Promise<RunResult> {
    let loaded: LoadedChain;
    try {
      loaded = this.inService(chainId);
    } catch (error) {
      return Promise.reject(error);
    }
    const budget = new RunBudget(this.limits, chainId, options.signal);
    const scope: RunScope = {
      budget,
      onEvent: options.onEvent,
      turn: options.turn ?? {},
      depth: 0,
    };
    return this.runLoaded(loaded, message, scope);
  }

  /** A nested run (flow, for with chain:<id>); a chain not in service fails as in RuleGo's TellFlow. */
  private runChain(chainId: string, message: RuleMessage, scope: RunScope): Promise<RunResult> {
    try {
      if (!this.closed && !this.chains.has(chainId)) {
        throw new AppError('not-found', `ruleChain id=${chainId} not found`);
      }
      return this.runLoaded(this.inService(chainId), message, scope);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** The `ref` node's `chainId:nodeId`: that node alone, or with what follows it; held in service meanwhile. */
  private async runChainNode(
    chainId: string,
    nodeId: string,
    message: RuleMessage,
    scope: RunScope,
    all: boolean,
  ): Promise<NodeOutput[]> {
    const loaded = this.inService(chainId);
    const { compiled } = loaded;
    const node = compiled.nodes.get(nodeId);
    if (!node) throw new AppError('not-found', `rule chain "${chainId}": no node "${nodeId}"`);
    if (scope.depth > this.maxDepth) throw new Error(`calls nested deeper than ${this.maxDepth} levels`);
    loaded.inFlight += 1;
    try {
      if (all) return outputsOfRun(await this.startRun(compiled, node, message, scope, () => undefined));
      return await new ChainRun(compiled, this.host, scope, () => undefined).callNode(nodeId, message);
    } finally {
      loaded.inFlight -= 1;
      if (loaded.retired && loaded.inFlight === 0) void destroyChain(compiled);
    }
  }

  private inService(chainId: string): LoadedChain {
    if (this.closed) throw new AppError('unavailable', 'rule engine is closed');
    const loaded = this.chains.get(chainId);
    if (!loaded) {
      const state = this.disabled.has(chainId) ? 'is disabled' : 'is not loaded';
      throw new AppError('not-found', `rule chain "${chainId}" ${state}`);
    }
    return loaded;
  }

  private runLoaded(loaded: LoadedChain, message: RuleMessage, scope: RunScope): Promise<RunResult> {
    const { compiled } = loaded;
    // An empty chain loads, as in RuleGo, and every run of it fails (RuleGo's ErrRuleChainHasNoNodes).
    const first = compiled.first;
    if (!first) {
      return Promise.resolve({ outcome: 'failure', results: [], error: 'the rule chain has no nodes' });
    }
    loaded.inFlight += 1;
    const watch = this.observer?.chainStart(compiled.id, scope, scope.watch);
    const runScope = watch
      ? { ...scope, watch, ...(watch.turnContext ? { turn: watch.turnContext(scope.turn) } : {}) }
      : scope;
    const started = this.startRun(compiled, first, message, runScope, () => {
      loaded.inFlight -= 1;
      if (loaded.retired && loaded.inFlight === 0) void destroyChain(compiled);
    });
    if (!watch) return started;
    return started.then(
      (result) => {
        watch.end(result);
        return result;
      },
      (error: unknown) => {
        watch.end(undefined, error);
        throw error;
      },
    );
  }

  private startRun(
    chain: CompiledChain,
    node: ChainNode,
    message: RuleMessage,
    scope: RunScope,
    onIdle: () => void,
  ): Promise<RunResult> {
    if (scope.depth > this.maxDepth) {
      onIdle();
      const error = `rule chain "${chain.id}": calls nested deeper than ${this.maxDepth} levels`;
      return Promise.resolve({ outcome: 'failure', results: [], error });
    }
    return new ChainRun(chain, this.host, scope, onIdle).start(node, message);
  }

  private async retire(loaded: LoadedChain): Promise<void> {
    loaded.retired = true;
    if (loaded.inFlight === 0) await destroyChain(loaded.compiled);
  }
}
