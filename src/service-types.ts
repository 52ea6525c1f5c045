// The shapes the composition root builds (services.ts): every service behind the HTTP app, the
// services of the REST resources, and the options tests and the server build them with.
import type { Logger } from './core/logger.ts';
import type { DiskSpace } from './core/disk-space.ts';
import type { Cluster } from './cluster/types.ts';
import type { EndpointManager } from './endpoints/endpoint-manager.ts';
import type { Readiness } from './cluster/readiness.ts';
import type { RuleEngine } from './engine/engine.ts';
import type { NodeRegistry } from './engine/registry.ts';
import type { ModelRegistry, ModelRegistryOptions } from './model-providers/registry.ts';
import type { ChainCatalog } from './chains/chain-catalog.ts';
import type { Db } from './storage/database.ts';
import type { SessionStore } from './storage/session-store.ts';
import type { TurnRunner } from './turns/agent-turn.ts';
import type { MemoryIndex } from './storage/memory-index.ts';
import type { SessionSearch } from './storage/session-search.ts';
import type { CronScheduler } from './scheduler/scheduler.ts';
import type { AdapterOptions } from './channels/adapters.ts';
import type { ChannelManager, ChannelManagerOptions } from './channels/manager.ts';
import type { PairingStore } from './channels/pairing-store.ts';
import type { ChannelAdapter } from './channels/types.ts';
import type { AuthService } from './auth/auth-service.ts';
import type { AgentsService } from './resources/agents/agents.service.ts';
import type { UserAuthService } from './resources/auth/auth.service.ts';
import type { BindingsService } from './resources/bindings/bindings.service.ts';
import type { ChannelsService } from './resources/channels/channels.service.ts';
import type { ConfigService } from './resources/config/config.service.ts';
import type { CronService } from './resources/cron/cron.service.ts';
import type { LogsService } from './resources/logs/logs.service.ts';
import type { MemoryService } from './resources/memory/memory.service.ts';
import type { MessagesService } from './resources/messages/messages.service.ts';
import type { ModelsService } from './resources/models/models.service.ts';
import type { RulesService } from './resources/rules/rules.service.ts';
import type { SessionsService } from './resources/sessions/sessions.service.ts';
import type { UsersService } from './resources/users/users.service.ts';
import type { PairingService } from './resources/pairing/pairing.service.ts';
import type { SetupService } from './resources/setup/setup.service.ts';
import type { SkillsService } from './resources/skills/skills.service.ts';
import type { ToolsService } from './resources/tools/tools.service.ts';
import type { WorkspaceService } from './resources/workspace/workspace.service.ts';
import type { OpenAIModelsService } from './resources/openai-models/openai-models.service.ts';
import type { ResponsesService } from './resources/responses/responses.service.ts';
import type { WebhooksService } from './resources/webhooks/webhooks.service.ts';
import type { McpHttpServer } from './mcp/mcp-server.ts';
import type { A2AServer } from './a2a/a2a-server.ts';
import type { Usage } from './usage/usage.ts';
import type { UsageService } from './resources/usage/usage.service.ts';
import type { BudgetsService } from './resources/budgets/budgets.service.ts';
import type { Telemetry } from './observability/telemetry.ts';
import type { MonitorService } from './resources/monitor/monitor.service.ts';
import type { DurableWork, DurableWorkOptions } from './storage/durable-work.ts';

/** The services behind the REST resources: one per folder of src/resources. */
export interface ResourceServices {
  agents: AgentsService;
  auth: UserAuthService;
  bindings: BindingsService;
  channels: ChannelsService;
  config: ConfigService;
  cron: CronService;
  logs: LogsService;
  /** An agent's memory files: search and list. */
  memory: MemoryService;
  messages: MessagesService;
  models: ModelsService;
  /** The live monitoring page's snapshot and turn traces. */
  monitor: MonitorService;
  /** The loaded agents as OpenAI models (GET /models). */
  openaiModels: OpenAIModelsService;
  /** The OpenAI Responses API over agent turns, with its stored responses. */
  responses: ResponsesService;
  rules: RulesService;
  sessions: SessionsService;
  users: UsersService;
  pairing: PairingService;
  setup: SetupService;
  skills: SkillsService;
  tools: ToolsService;
  webhooks: WebhooksService;
  workspace: WorkspaceService;
  /** GET /usage. */
  usage: UsageService;
  /** /budgets: the config's budgets with what they spent. */
  budgets: BudgetsService;
}

export interface Services {
  /** Users, tokens and API keys; also what the auth hook resolves credentials with. */
  auth: AuthService;
  /** DM pairing requests of channel accounts with dm_policy pairing. */
  pairing: PairingStore;
  registry: NodeRegistry;
  engine: RuleEngine;
  chains: ChainCatalog;
  models: ModelRegistry;
  sessions: SessionStore;
  /** The agents' memory files in the keyword index. */
  memory: MemoryIndex;
  /** Keyword search over the agents' transcripts. */
  sessionSearch: SessionSearch;
  turns: TurnRunner;
  scheduler: CronScheduler;
  /** Receiving loops and adapters of the chat platforms. */
  channels: ChannelManager;
  /** The durable inbox of channel messages and cron fires. */
  work: DurableWork;
  workspace(agentId: string): Promise<string>;
  /** Coordination with the other instances (clustered mode) or its in-process stand-ins. */
  cluster: Cluster;
  /** Metrics, traces, live events and the monitoring page's state. */
  telemetry: Telemetry;
  /** The endpoints of the chains in service (metadata.endpoints). */
  endpoints: EndpointManager;
  /** Whether the database and (clustered) Redis answer and the data root's disk is not full, for GET /ready. */
  ready(): Promise<Readiness>;
  /** The data root's free space: told of writes refused for want of space, checked by ready(). */
  disk: DiskSpace;
  /** The database (sessions, cron, stored responses). */
  db: Db;
  /** Folder of the global skills: <data root>/skills. */
  skillsDir: string;
  /** Usage records, budgets and rate limits (issue 24). */
  usage: Usage;
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
  /** The package version (reported as service.version in traces). */
  serviceVersion?: string;
  /** Options of the model registry (tests shorten retry back-off). */
  models?: ModelRegistryOptions;
  /** The server's logger, made before any service (default: silent). */
  logger?: Logger;
  /** Leave cron and the channel accounts stopped until `start()` (the server calls it after listening). */
  deferStart?: boolean;
  /** Lease and tick of the durable inbox (tests shorten them). */
  durableWork?: DurableWorkOptions;
  /** Options of the channel manager (tests point adapters at fakes and shorten back-off). */
  channels?: Omit<ChannelManagerOptions, 'logger'> & {
    /** Options of the built-in adapters (tests point them at fakes). */
    platforms?: Omit<AdapterOptions, 'logger'>;
    /** Adapters used instead of the built-in ones of the same platforms (tests). */
    adapters?: ChannelAdapter[];
  };
}
