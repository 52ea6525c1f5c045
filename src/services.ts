// Builds the services behind the HTTP app from a config store. Shared by the server and the test
// harness, so both wire the product the same way.
import { mkdir, realpath } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { removeStaleTempFiles } from './core/atomic-write.ts';
import type { ConfigStore } from './config/config-store.ts';
import type { Config } from './config/schema.ts';
import { RuleEngine } from './engine/engine.ts';
import { createAiAgentNode } from './engine/nodes/ai-agent.ts';
import { createAiLlmNode } from './engine/nodes/ai-llm.ts';
import { createDefaultRegistry, type NodeRegistry } from './engine/registry.ts';
import { ModelThreads } from './model-providers/model-threads.ts';
import { ModelRegistry, type ModelRegistryOptions } from './model-providers/registry.ts';
import { agentTemplate } from './chains/agent-template.ts';
import { ChainCatalog } from './chains/chain-catalog.ts';
import { ChainFileStore } from './storage/chain-files.ts';
import { openDatabase, type Db } from './storage/database.ts';
import { SessionStore } from './storage/session-store.ts';
import { TurnRunner } from './turns/agent-turn.ts';
import { CronStore } from './scheduler/cron-store.ts';
import { CronScheduler } from './scheduler/scheduler.ts';
import { ChannelManager, type ChannelManagerOptions } from './channels/manager.ts';

export interface Services {
  registry: NodeRegistry;
  engine: RuleEngine;
  chains: ChainCatalog;
  models: ModelRegistry;
  sessions: SessionStore;
  turns: TurnRunner;
  scheduler: CronScheduler;
  /** Receiving loops and adapters of the chat platforms. */
  channels: ChannelManager;
  workspace(agentId: string): Promise<string>;
  /** Folder of the global skills: <data root>/skills. */
  skillsDir: string;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** Options of the model registry (tests shorten retry back-off). */
  models?: ModelRegistryOptions;
  logger?: { info(object: object, message: string): void; warn(object: object, message: string): void };
  /** Options of the channel manager (tests point adapters at fakes and shorten back-off). */
  channels?: Omit<ChannelManagerOptions, 'logger'>;
}

function globals(config: Config): Record<string, unknown> {
  return { models: config.models, agents: config.agents };
}

export async function createServices(store: ConfigStore, options: ServiceOptions = {}): Promise<Services> {
  const config = store.current;
  const root = config.data.root_dir;
  await mkdir(root, { recursive: true, mode: 0o700 });
  // Writes a crash cut short leave temp files beside their targets; nothing else removes them.
  await removeStaleTempFiles(dirname(store.path), { recursive: false });
  await removeStaleTempFiles(root, { recursive: true });
  const modelThreads =
    config.engine.model_workers > 0 ? new ModelThreads({ workers: config.engine.model_workers }) : undefined;
  const models = new ModelRegistry(config.models, {
    ...options.models,
    ...(modelThreads ? { threads: modelThreads } : {}),
  });
  store.onChange((next) => models.replace(next.models));

  const files = new ChainFileStore(root);
  const skillsDir = resolve(root, 'skills');
  // Created and resolved once per agent; every turn needs it, and it does not move.
  const workspaces = new Map<string, Promise<string>>();
  const workspace = (agentId: string): Promise<string> => {
    let found = workspaces.get(agentId);
    if (!found) {
      const path = join(files.agentDir(agentId), 'workspace');
      found = mkdir(path, { recursive: true }).then(() => realpath(path));
      found.catch(() => workspaces.delete(agentId));
      workspaces.set(agentId, found);
    }
    return found;
  };

  const registry = createDefaultRegistry();
  const engine = new RuleEngine({
    registry,
    services: {
      scriptTimeoutMs: config.engine.script_timeout_ms,
      scriptMemoryBytes: config.engine.script_memory_mb * 1024 * 1024,
      ...(config.engine.script_workers > 0 ? { scriptWorkers: config.engine.script_workers } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    },
  });
  // Node types are looked up when a chain loads, so the AI nodes can join after the engine exists.
  const aiDeps = {
    models,
    globals: () => globals(store.current),
    workspace,
    globalSkillsDir: skillsDir,
    chainDefinition: (id: string) => engine.definitionOf(id),
  };
  registry.register(createAiAgentNode(aiDeps)).register(createAiLlmNode(aiDeps));

  const db: Db = await openDatabase(join(root, 'agent-service.db'));
  const sessions = new SessionStore(db);
  const chains = new ChainCatalog(engine, files, () => agentTemplate());
  chains.onAgentDeleted(async (agentId) => {
    workspaces.delete(agentId);
    await sessions.clearAgent(agentId);
  });
  await chains.init();
  const turns = new TurnRunner(chains.agents, sessions);
  const scheduler = new CronScheduler(new CronStore(db), chains.agents, turns, {
    ...(options.logger ? { logger: options.logger } : {}),
  });
  await scheduler.start();
  const channels = new ChannelManager(store, turns, {
    ...options.channels,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  channels.start();
  return {
    registry,
    engine,
    chains,
    models,
    sessions,
    turns,
    scheduler,
    channels,
    workspace,
    skillsDir,
    async close() {
      await channels.stop();
      await scheduler.stop();
      await engine.close();
      await modelThreads?.close();
      await db.destroy();
    },
  };
}
