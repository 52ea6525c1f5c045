// The composition root of the services: builds every service behind the HTTP app (the domain
// services and one per REST resource) from a config store. Shared by the server and the test
// harness, so both wire the product the same way; routes and app.ts only receive what is built here.
import { mkdir } from 'node:fs/promises';
import { sql } from 'kysely';
import { dirname, join, resolve } from 'node:path';
import { removeStaleTempFiles } from './core/atomic-write.ts';
import { createCluster, type Cluster } from './cluster/cluster.ts';
import { RedisRuleCache } from './engine/cache.ts';
import { EndpointManager } from './endpoints/endpoint-manager.ts';
import type { Locks } from './cluster/locks.ts';
import { readiness, type Readiness } from './cluster/readiness.ts';
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
import { builtInAdapters, type AdapterOptions } from './channels/adapters.ts';
import { ChannelManager, type ChannelManagerOptions } from './channels/manager.ts';
import type { ChannelAdapter } from './channels/types.ts';
import { AuthService } from './auth/auth-service.ts';
import { randomToken } from './core/ids.ts';
import { RateLimiter } from './http/rate-limit.ts';
import { AgentsService } from './resources/agents/agents.service.ts';
import { UserAuthService } from './resources/auth/auth.service.ts';
import { BindingsService } from './resources/bindings/bindings.service.ts';
import { ChannelsService } from './resources/channels/channels.service.ts';
import { ConfigService } from './resources/config/config.service.ts';
import { CronService } from './resources/cron/cron.service.ts';
import { LogsService } from './resources/logs/logs.service.ts';
import { MessagesService } from './resources/messages/messages.service.ts';
import { ModelsService } from './resources/models/models.service.ts';
import { RulesService } from './resources/rules/rules.service.ts';
import { SessionsService } from './resources/sessions/sessions.service.ts';
import { SkillsService } from './resources/skills/skills.service.ts';
import { ToolsService } from './resources/tools/tools.service.ts';
import { WorkspaceService } from './resources/workspace/workspace.service.ts';
import { OpenAIModelsService } from './resources/openai-models/openai-models.service.ts';
import { AgentWorkspaces } from './storage/agent-workspaces.ts';
import { WebhooksService } from './resources/webhooks/webhooks.service.ts';
import { redactUrlCredentials } from './core/url-credentials.ts';
import { McpHttpServer } from './mcp/mcp-server.ts';
import { McpTools } from './mcp/mcp-tools.ts';
import { A2AServer } from './a2a/a2a-server.ts';

/** The services behind the REST resources: one per folder of src/resources. */
export interface ResourceServices {
  agents: AgentsService;
  auth: UserAuthService;
  bindings: BindingsService;
  channels: ChannelsService;
  config: ConfigService;
  cron: CronService;
  logs: LogsService;
  messages: MessagesService;
  models: ModelsService;
  /** The loaded agents as OpenAI models (GET /models). */
  openaiModels: OpenAIModelsService;
  rules: RulesService;
  sessions: SessionsService;
  skills: SkillsService;
  tools: ToolsService;
  webhooks: WebhooksService;
  workspace: WorkspaceService;
}

export interface Services {
  /** Users, tokens and API keys; also what the auth hook resolves credentials with. */
  auth: AuthService;
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
  /** Coordination with the other instances (clustered mode) or its in-process stand-ins. */
  cluster: Cluster;
  /** The endpoints of the chains in service (metadata.endpoints). */
  endpoints: EndpointManager;
  /** Whether the database and (clustered) Redis answer, for GET /ready. */
  ready(): Promise<Readiness>;
  /** Folder of the global skills: <data root>/skills. */
  skillsDir: string;
  resources: ResourceServices;
  /**
   * Starts what reaches out on its own: cron tasks and the chat platform accounts. Called once the
   * server listens (createServices calls it itself unless `deferStart`), so a start that fails
   * (a busy port) never polls a platform or fires a task.
   */
  start(): Promise<void>;
  /** The agents as an MCP server (/api/v1/mcp) and its sessions. */
  mcp: McpHttpServer;
  /** The agents as A2A servers (/api/v1/a2a/{agentId}): tasks over turns. */
  a2a: A2AServer;
  close(): Promise<void>;
}

export interface ServiceOptions {
  /** JWT signing secret (the server reads or makes it); by default a random one, so tokens end with the process. */
  jwtSecret?: string;
  /** Options of the model registry (tests shorten retry back-off). */
  models?: ModelRegistryOptions;
  logger?: { info(object: object, message: string): void; warn(object: object, message: string): void };
  /** Leave cron and the channel accounts stopped until `start()` (the server calls it after listening). */
  deferStart?: boolean;
  /** Options of the channel manager (tests point adapters at fakes and shorten back-off). */
  channels?: Omit<ChannelManagerOptions, 'logger'> & {
    /** Options of the built-in adapters (tests point them at fakes). */
    platforms?: Omit<AdapterOptions, 'logger'>;
    /** Adapters used instead of the built-in ones of the same platforms (tests). */
    adapters?: ChannelAdapter[];
  };
}

function globals(config: Config): Record<string, unknown> {
  return { models: config.models, agents: config.agents };
}

/**
 * `global` as scripts, expressions and configuration variables see it: the same properties without
 * secrets (provider keys, credentials in URLs). Only the AI nodes resolve `${global...api_key}`.
 */
function publicGlobals(config: Config): Record<string, unknown> {
  const providers = Object.fromEntries(
    Object.entries(config.models.providers).map(([id, provider]) => {
      const { api_key: _key, ...shown } = provider;
      return [id, { ...shown, base_url: redactUrlCredentials(provider.base_url) }];
    }),
  );
  return { models: { ...config.models, providers }, agents: config.agents };
}

export async function createServices(store: ConfigStore, options: ServiceOptions = {}): Promise<Services> {
  const config = store.current;
  const root = config.data.root_dir;
  await mkdir(root, { recursive: true, mode: 0o700 });
  // Writes a crash cut short leave temp files beside their targets; nothing else removes them.
  // Clustered, other instances share these folders and may be writing right now: only old ones go.
  const cleanup = { recursive: false, ...(config.cluster.redis_url ? { olderThanMs: 10 * 60_000 } : {}) };
  await removeStaleTempFiles(dirname(store.path), cleanup);
  await removeStaleTempFiles(root, { ...cleanup, recursive: true });
  const cluster = await createCluster({
    redisUrl: config.cluster.redis_url,
    prefix: config.cluster.key_prefix,
    instanceId: config.cluster.instance_id,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const modelThreads =
    config.engine.model_workers > 0 ? new ModelThreads({ workers: config.engine.model_workers }) : undefined;
  const models = new ModelRegistry(config.models, {
    ...options.models,
    ...(modelThreads ? { threads: modelThreads } : {}),
  });
  store.onChange((next) => models.replace(next.models));

  const files = new ChainFileStore(root);
  const skillsDir = resolve(root, 'skills');
  const workspaces = new AgentWorkspaces(files);
  const workspace = (agentId: string): Promise<string> => workspaces.resolve(agentId);

  const registry = createDefaultRegistry();
  const engine = new RuleEngine({
    registry,
    maxNodeExecutions: config.engine.max_node_executions,
    maxFanOut: config.engine.max_fan_out,
    services: {
      globals: () => publicGlobals(store.current),
      allowExec: config.engine.allow_exec,
      allowSsh: config.engine.allow_ssh,
      // cacheGet/cacheSet/cacheDelete: shared through Redis when clustered, else in process.
      ...(cluster.redis ? { ruleCache: new RedisRuleCache(cluster.redis, `${cluster.prefix}rulecache:`) } : {}),
      network: {
        allowPrivateNetwork: config.engine.rest_allow_private_network,
        allowedHosts: config.engine.rest_allowed_hosts,
      },
      scriptTimeoutMs: config.engine.script_timeout_ms,
      scriptMemoryBytes: config.engine.script_memory_mb * 1024 * 1024,
      ...(config.engine.script_workers > 0 ? { scriptWorkers: config.engine.script_workers } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    },
  });
  // Chains' own endpoints (http, schedule, mqtt) follow the chains in service from the first load on.
  const endpoints = new EndpointManager(
    engine,
    cluster.lease,
    { allowPrivateNetwork: config.engine.rest_allow_private_network, allowedHosts: config.engine.rest_allowed_hosts },
    options.logger,
  );
  // Node types are looked up when a chain loads, so the AI nodes can join after the engine exists.
  const aiDeps = {
    models,
    globals: () => globals(store.current),
    workspace,
    globalSkillsDir: skillsDir,
    chainDefinition: (id: string) => engine.definitionOf(id),
  };
  registry.register(createAiAgentNode(aiDeps)).register(createAiLlmNode(aiDeps));

  const db: Db = await openDatabase(config.data.database_url || join(root, 'agent-service.db'), {
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const sessions = new SessionStore(db);
  const chains = new ChainCatalog(engine, files, () => agentTemplate());
  chains.onAgentDeleted(async (agentId) => {
    workspaces.forget(agentId);
    await sessions.clearAgent(agentId);
  });
  await chains.init();
  if (cluster.mode === 'clustered') {
    store.share(cluster);
    chains.share(cluster);
  }
  // Clustered, a turn waits for the session's lock at most as long as a request may take.
  const sessionLocks: Locks = {
    run: (key, work, lockOptions) =>
      cluster.locks.run(key, work, { waitMs: store.current.server.request_timeout_ms, ...lockOptions }),
  };
  const turns = new TurnRunner(chains.agents, sessions, sessionLocks);
  // Clustered, cron tasks are BullMQ job schedulers fired by a worker on every instance.
  const trigger =
    cluster.mode === 'clustered' && cluster.redis && cluster.connect
      ? new (await import('./scheduler/bullmq-scheduler.ts')).BullMqTrigger(
          { ...cluster, redis: cluster.redis, connect: cluster.connect.bind(cluster) },
          { ...(options.logger ? { logger: options.logger } : {}) },
        )
      : undefined;
  const scheduler = new CronScheduler(new CronStore(db), chains.agents, turns, {
    ...(trigger ? { trigger, stopGraceMs: config.server.shutdown_timeout_ms } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  const { platforms, adapters: replacements = [], ...channelOptions } = options.channels ?? {};
  // Adapters log through the manager's logger, which becomes the server's once it exists.
  const managerRef: { current?: ChannelManager } = {};
  const adapters = [
    ...builtInAdapters({ ...platforms, logger: () => managerRef.current?.logger }).filter(
      (adapter) => !replacements.some((replacement) => replacement.platform === adapter.platform),
    ),
    ...replacements,
  ];
  const channels = new ChannelManager(store, turns, adapters, {
    lease: cluster.lease,
    ...channelOptions,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  managerRef.current = channels;
  const auth = new AuthService(store, options.jwtSecret ?? randomToken(48));
  const mcp = new McpHttpServer(new McpTools(turns, chains), { name: 'agent-service', version: '1.0.0' });
  const a2a = new A2AServer(turns, chains.agents, { requireAuth: () => store.current.security.requireAuth });
  const domain: DomainServices = {
    auth,
    registry,
    engine,
    chains,
    models,
    sessions,
    turns,
    scheduler,
    channels,
    workspace,
    cluster,
    endpoints,
    ready: () => readiness(cluster, () => sql`select 1`.execute(db)),
    skillsDir,
    async start() {
      await scheduler.start();
      channels.start();
    },
    mcp,
    a2a,
    async close() {
      await mcp.close();
      // Channel leases are released as their accounts stop; held locks before Redis is closed.
      await channels.stop();
      await scheduler.stop();
      endpoints.close();
      await cluster.close();
      await engine.close();
      await modelThreads?.close();
      await db.destroy();
    },
  };
  const services = { ...domain, resources: createResourceServices(store, domain) };
  if (!options.deferStart) await services.start();
  return services;
}

/** Everything but the resource services, which are built over these. */
type DomainServices = Omit<Services, 'resources'>;

function createResourceServices(store: ConfigStore, domain: DomainServices): ResourceServices {
  const { chains, workspace } = domain;
  const agents = new AgentsService(chains);
  const config = store.current;
  return {
    agents,
    // security.loginRateLimit is read at start (changing it asks for a restart).
    auth: new UserAuthService(domain.auth, new RateLimiter(config.security.loginRateLimit, 60_000)),
    bindings: new BindingsService(store, agents),
    channels: new ChannelsService(store, domain.channels),
    webhooks: new WebhooksService(domain.channels),
    config: new ConfigService(store),
    cron: new CronService(domain.scheduler, agents),
    logs: new LogsService(domain.engine.runLogs),
    messages: new MessagesService(store, domain.channels, {
      requireAgent: (agentId) => agents.requireAgent(agentId),
      workspace,
    }),
    models: new ModelsService(store),
    openaiModels: new OpenAIModelsService(chains.agents),
    rules: new RulesService(
      chains,
      domain.registry,
      () => store.current.server.request_timeout_ms,
      () => Object.keys(publicGlobals(store.current)),
    ),
    sessions: new SessionsService(domain.sessions, agents),
    skills: new SkillsService(agents, workspace, domain.skillsDir),
    tools: new ToolsService(chains),
    workspace: new WorkspaceService(agents, workspace),
  };
}
