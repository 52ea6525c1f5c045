// The composition root of the services: builds every service behind the HTTP app (the domain
// services and one per REST resource) from a config store. Shared by the server and the test
// harness, so both wire the product the same way; routes and app.ts only receive what is built here.
import { mkdir } from 'node:fs/promises';
import { sql } from 'kysely';
import { dirname, join, resolve } from 'node:path';
import { removeStaleTempFiles } from './core/atomic-write.ts';
import { DiskSpace } from './core/disk-space.ts';
import { silentLogger } from './core/logger.ts';
import { createCluster } from './cluster/cluster.ts';
import { RedisRuleCache } from './engine/cache.ts';
import { EndpointManager } from './endpoints/endpoint-manager.ts';
import type { Locks } from './cluster/locks.ts';
import { readiness } from './cluster/readiness.ts';
import type { ConfigStore } from './config/config-store.ts';
import type { Config } from './config/schema.ts';
import { RuleEngine } from './engine/engine.ts';
import { createAiAgentNode } from './engine/nodes/ai-agent.ts';
import { createAiLlmNode } from './engine/nodes/ai-llm.ts';
import { createDefaultRegistry } from './engine/registry.ts';
import { ModelThreads } from './model-providers/model-threads.ts';
import { ModelRegistry } from './model-providers/registry.ts';
import { agentTemplate } from './chains/agent-template.ts';
import { ChainCatalog } from './chains/chain-catalog.ts';
import { ChainFileStore } from './storage/chain-files.ts';
import { openDatabase, type Db } from './storage/database.ts';
import { DurableWork } from './storage/durable-work.ts';
import { SessionStore } from './storage/session-store.ts';
import { TurnRunner } from './turns/agent-turn.ts';
import { agentModel } from './turns/agent-model.ts';
import { Compactor } from './turns/compactor.ts';
import { memoryAccess } from './turns/memory-access.ts';
import { MemoryIndex } from './storage/memory-index.ts';
import { MemoryVectors } from './storage/memory-vectors.ts';
import { embeddingModelSource } from './model-providers/embedding-model.ts';
import { SessionSearch } from './storage/session-search.ts';
import { KeywordIndex } from './storage/search/keyword-index.ts';
import { CronStore } from './scheduler/cron-store.ts';
import { CronScheduler } from './scheduler/scheduler.ts';
import { builtInAdapters } from './channels/adapters.ts';
import { ChannelManager } from './channels/manager.ts';
import { metaOf } from './channels/account-schema.ts';
import { PairingStore } from './channels/pairing-store.ts';
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
import { MemoryService } from './resources/memory/memory.service.ts';
import { MessagesService } from './resources/messages/messages.service.ts';
import { ModelsService } from './resources/models/models.service.ts';
import { RulesService } from './resources/rules/rules.service.ts';
import { SessionsService } from './resources/sessions/sessions.service.ts';
import { UsersService } from './resources/users/users.service.ts';
import { PairingService } from './resources/pairing/pairing.service.ts';
import { SetupService } from './resources/setup/setup.service.ts';
import { SkillsService } from './resources/skills/skills.service.ts';
import { ToolsService } from './resources/tools/tools.service.ts';
import { WorkspaceService } from './resources/workspace/workspace.service.ts';
import { OpenAIModelsService } from './resources/openai-models/openai-models.service.ts';
import { ResponsesService } from './resources/responses/responses.service.ts';
import { ResponseStore } from './resources/responses/responses.store.ts';
import { AgentWorkspaces } from './storage/agent-workspaces.ts';
import { WebhooksService } from './resources/webhooks/webhooks.service.ts';
import { redactUrlCredentials } from './core/url-credentials.ts';
import { McpHttpServer } from './mcp/mcp-server.ts';
import { McpTools } from './mcp/mcp-tools.ts';
import { A2AServer } from './a2a/a2a-server.ts';
import { createUsage } from './usage/usage.ts';
import type { NotifyTarget } from './usage/budgets.ts';
import { UsageService } from './resources/usage/usage.service.ts';
import { BudgetsService } from './resources/budgets/budgets.service.ts';
import { Telemetry } from './observability/telemetry.ts';
import { MonitorService } from './resources/monitor/monitor.service.ts';
import { RedisLiveTransport } from './observability/redis-live-transport.ts';
import type { Platform } from './config/schema.ts';

import type { ResourceServices, ServiceOptions, Services } from './service-types.ts';

export type { ResourceServices, ServiceOptions, Services };

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
  const logger = options.logger ?? silentLogger;
  await mkdir(root, { recursive: true, mode: 0o700 });
  // Temp files of writes a crash cut short (clustered, only old ones: others may be writing now).
  const cleanup = { recursive: false, ...(config.cluster.redis_url ? { olderThanMs: 10 * 60_000 } : {}) };
  await removeStaleTempFiles(dirname(store.path), cleanup);
  await removeStaleTempFiles(root, { ...cleanup, recursive: true });
  const disk = new DiskSpace(root);
  const cluster = await createCluster({
    redisUrl: config.cluster.redis_url,
    prefix: config.cluster.key_prefix,
    instanceId: config.cluster.instance_id,
    logger,
  });
  // Budget notices go out through a channel once the resource services exist.
  const notifyRef: { current?: (target: NotifyTarget, text: string) => Promise<void> } = {};
  const usage = createUsage({
    config: () => store.current,
    cluster,
    logger,
    notify: (target, text) => notifyRef.current?.(target, text) ?? Promise.resolve(),
  });
  const channelRef: { current?: ChannelManager } = {};
  const liveTransport =
    cluster.mode === 'clustered' && cluster.redis && cluster.connect
      ? new RedisLiveTransport(cluster.redis, cluster.connect('live-events'), cluster.prefix, (message) =>
          logger.warn({}, message),
        )
      : undefined;
  await liveTransport?.start();
  const telemetry = await Telemetry.create({
    otlpEndpoint: config.observability.otlp_endpoint,
    captureContent: config.observability.capture_content,
    ...(config.observability.trace_sample_ratio !== undefined
      ? { traceSampleRatio: config.observability.trace_sample_ratio }
      : {}),
    ...(options.serviceVersion ? { serviceVersion: options.serviceVersion } : {}),
    ...(liveTransport ? { transport: liveTransport } : {}),
    logger,
    channelStates: () => channelStates(store.current, channelRef.current),
  });
  const modelThreads =
    config.engine.model_workers > 0 ? new ModelThreads({ workers: config.engine.model_workers }) : undefined;
  const models = new ModelRegistry(config.models, {
    ...options.models,
    ...(modelThreads ? { threads: modelThreads } : {}),
    meter: usage.meter,
  });
  store.onChange((next) => models.replace(next.models));

  const files = new ChainFileStore(root);
  const skillsDir = resolve(root, 'skills');
  const workspaces = new AgentWorkspaces(files);
  const workspace = (agentId: string): Promise<string> => workspaces.resolve(agentId);

  const registry = createDefaultRegistry();
  const engine = new RuleEngine({
    registry,
    observer: telemetry.runObserver,
    maxNodeExecutions: config.engine.max_node_executions,
    maxFanOut: config.engine.max_fan_out,
    services: {
      globals: () => publicGlobals(store.current),
      allowExec: config.engine.allow_exec,
      allowSsh: config.engine.allow_ssh,
      // cacheGet/cacheSet/cacheDelete: shared through Redis when clustered, else in process.
      ...(cluster.redis
        ? { ruleCache: new RedisRuleCache(cluster.redis, `${cluster.prefix}rulecache:`) }
        : {}),
      network: {
        allowPrivateNetwork: config.engine.rest_allow_private_network,
        allowedHosts: config.engine.rest_allowed_hosts,
      },
      scriptTimeoutMs: config.engine.script_timeout_ms,
      scriptMemoryBytes: config.engine.script_memory_mb * 1024 * 1024,
      ...(config.engine.script_workers > 0 ? { scriptWorkers: config.engine.script_workers } : {}),
      logger,
    },
  });
  // Chains' own endpoints (http, schedule, mqtt) follow the chains in service from the first load on.
  const endpoints = new EndpointManager(
    engine,
    cluster.lease,
    {
      allowPrivateNetwork: config.engine.rest_allow_private_network,
      allowedHosts: config.engine.rest_allowed_hosts,
    },
    logger,
  );
  // Node types are looked up when a chain loads, so the AI nodes can join after the engine exists.
  const aiDeps = {
    models: {
      get: (id?: string) => telemetry.provider(models.get(id)),
      resolve: (target: Parameters<ModelRegistry['resolve']>[0]) =>
        telemetry.provider(models.resolve(target)),
    },
    globals: () => globals(store.current),
    workspace,
    globalSkillsDir: skillsDir,
    chainDefinition: (id: string) => engine.definitionOf(id),
  };
  registry.register(createAiAgentNode(aiDeps)).register(createAiLlmNode(aiDeps));

  const db: Db = await openDatabase(config.data.database_url || join(root, 'agent-service.db'), { logger });
  usage.attach(db);
  usage.budgets.onEvent((event) => telemetry.budgetEvent(event.budget.id, event.type));
  const keywords = new KeywordIndex(db, KeywordIndex.dialectOf(db));
  const sessions = new SessionStore(db, undefined, undefined, keywords);
  const embeddingModel = embeddingModelSource(
    () => ({ providers: store.current.models.providers, embeddings: store.current.memory.embeddings }),
    { keywordOnly: KeywordIndex.dialectOf(db) === 'postgres', logger },
  );
  embeddingModel(); // clustered with embeddings configured: says once, at start, that they are unused
  const vectors = new MemoryVectors(db, embeddingModel, { logger });
  const memory = new MemoryIndex(db, keywords, workspace, { vectors });
  const sessionSearch = new SessionSearch(db, keywords);
  const compactor = new Compactor({
    sessions,
    defaults: () => store.current.agents.defaults.compaction,
    models,
    onCompaction: ({ key, trigger, result }) => {
      telemetry.compacted();
      logger.info({ session: key, trigger, ...result, summary: undefined }, 'session compaction');
    },
  });
  const chains = new ChainCatalog(engine, files, () => agentTemplate());
  chains.onAgentDeleted(async (agentId) => {
    workspaces.forget(agentId);
    await sessions.clearAgent(agentId);
    await memory.forget(agentId);
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
  const turns = new TurnRunner(
    chains.agents,
    sessions,
    sessionLocks,
    {
      compactor,
      access: (agentId, key) => memoryAccess(memory, sessionSearch, agentId, key),
      model: (agentId) => agentModel(chains.agents, models, () => globals(store.current), agentId),
    },
    telemetry,
    {
      timeoutMs: () => store.current.agents.turn_timeout_ms,
      maxQueued: () => store.current.agents.max_queued_turns,
    },
  );
  // Clustered, cron tasks are BullMQ job schedulers fired by a worker on every instance.
  const trigger =
    cluster.mode === 'clustered' && cluster.redis && cluster.connect
      ? new (await import('./scheduler/bullmq-scheduler.ts')).BullMqTrigger(
          { ...cluster, redis: cluster.redis, connect: cluster.connect.bind(cluster) },
          { logger },
        )
      : undefined;
  // Inbound messages and cron fires are recorded before they are acknowledged or run (README, Durability).
  const work = new DurableWork(db, cluster.instanceId, {
    single: cluster.mode === 'single',
    ...(cluster.mode === 'clustered' ? { leaseUrl: config.data.database_url } : {}),
    logger,
    ...options.durableWork,
  });
  const scheduler = new CronScheduler(new CronStore(db), chains.agents, turns, {
    work,
    ...(trigger ? { trigger, stopGraceMs: config.server.shutdown_timeout_ms } : {}),
    logger,
  });
  const { platforms, adapters: replacements = [], ...channelOptions } = options.channels ?? {};
  const adapters = [
    ...builtInAdapters({ ...platforms, logger }).filter(
      (adapter) => !replacements.some((replacement) => replacement.platform === adapter.platform),
    ),
    ...replacements,
  ];
  const pairing = new PairingStore(db);
  const channels = new ChannelManager(store, turns, adapters, {
    lease: cluster.lease,
    work,
    guard: usage.guard,
    pairing,
    ...channelOptions,
    logger,
  });
  channelRef.current = channels;
  const auth = new AuthService(store, options.jwtSecret ?? randomToken(48));
  const mcp = new McpHttpServer(new McpTools(turns, chains), { name: 'agent-service', version: '1.0.0' });
  const a2a = new A2AServer(turns, chains.agents, { requireAuth: () => store.current.security.requireAuth });
  const domain: DomainServices = {
    auth,
    pairing,
    registry,
    engine,
    chains,
    models,
    sessions,
    memory,
    sessionSearch,
    turns,
    scheduler,
    channels,
    work,
    workspace,
    cluster,
    telemetry,
    endpoints,
    ready: () =>
      readiness(
        cluster,
        () => sql`select 1`.execute(db),
        () => disk.check(),
      ),
    disk,
    db,
    skillsDir,
    async start() {
      await scheduler.start();
      channels.start();
      await work.start();
    },
    mcp,
    a2a,
    usage,
    async close() {
      await mcp.close();
      // Channel leases are released as their accounts stop; held locks before Redis is closed.
      await channels.stop(store.current.server.shutdown_timeout_ms / 2);
      await scheduler.stop();
      await work.stop();
      endpoints.close();
      await telemetry.close();
      await cluster.close();
      await engine.close();
      memory.close();
      await modelThreads?.close();
      await usage.close();
      await db.destroy();
    },
  };
  const resources = createResourceServices(store, domain);
  notifyRef.current = async (target, text) => {
    await resources.messages.sendText(target.platform, {
      chatId: target.chatId,
      message: text,
      ...(target.accountId ? { accountId: target.accountId } : {}),
    });
  };
  const services = { ...domain, resources };
  if (!options.deferStart) await services.start();
  return services;
}

/** Every configured channel account's connection state (for the channel_connections gauge). */
function channelStates(
  config: Config,
  channels: ChannelManager | undefined,
): Array<{ platform: string; state: string }> {
  if (!channels) return [];
  return Object.entries(config.channels).flatMap(([platform, section]) =>
    Object.keys(section?.accounts ?? {}).map((accountId) => ({
      platform,
      state: channels.status(platform as Platform, accountId).state,
    })),
  );
}

/** Everything but the resource services, which are built over these. */
type DomainServices = Omit<Services, 'resources'>;

function createResourceServices(store: ConfigStore, domain: DomainServices): ResourceServices {
  const { chains, workspace } = domain;
  const agents = new AgentsService(chains);
  const models = new ModelsService(store);
  const config = store.current;
  return {
    agents,
    // security.loginRateLimit is read at start (changing it asks for a restart).
    auth: new UserAuthService(domain.auth, new RateLimiter(config.security.loginRateLimit, 60_000)),
    bindings: new BindingsService(store, agents),
    channels: new ChannelsService(store, domain.channels),
    webhooks: new WebhooksService(domain.channels),
    config: new ConfigService(store, (platform) => {
      const fields = domain.channels.accountFields(platform as Platform)?.fields ?? {};
      return Object.entries(fields)
        .filter(([, field]) => metaOf(field).secret === true)
        .map(([name]) => name);
    }),
    cron: new CronService(domain.scheduler, agents),
    logs: new LogsService(domain.engine.runLogs),
    memory: new MemoryService(domain.memory, agents),
    messages: new MessagesService(store, domain.channels, {
      requireAgent: (agentId) => agents.requireAgent(agentId),
      workspace,
    }),
    models,
    monitor: new MonitorService(
      domain.telemetry,
      () =>
        Object.entries(store.current.channels).flatMap(([platform, section]) =>
          Object.keys(section?.accounts ?? {}).map((accountId) => {
            const status = domain.channels.status(platform as Platform, accountId);
            return {
              platform,
              accountId,
              state: status.state,
              ...(status.error ? { error: status.error } : {}),
            };
          }),
        ),
      domain.cluster.instanceId,
    ),
    openaiModels: new OpenAIModelsService(chains.agents),
    responses: new ResponsesService(domain.turns, domain.sessions, new ResponseStore(domain.db), {
      clustered: domain.cluster.mode === 'clustered',
    }),
    rules: new RulesService(
      chains,
      domain.registry,
      () => store.current.server.request_timeout_ms,
      () => Object.keys(publicGlobals(store.current)),
    ),
    sessions: new SessionsService(domain.sessions, agents, {
      search: domain.sessionSearch,
      compact: (agentId, key, signal) => domain.turns.compact(agentId, key, signal),
      locked: (key, work) => domain.turns.inSession(key, work),
    }),
    users: new UsersService(store, agents),
    pairing: new PairingService(store, domain.pairing),
    setup: new SetupService(store, models),
    skills: new SkillsService(agents, workspace, domain.skillsDir),
    tools: new ToolsService(chains),
    workspace: new WorkspaceService(agents, workspace),
    usage: new UsageService(domain.usage.store),
    budgets: new BudgetsService(store, domain.usage.budgets),
  };
}
