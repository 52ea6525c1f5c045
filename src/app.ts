// buildApp: the fastify instance with every route, the auth policy and the error handler. It does
// no I/O of its own and builds no service: every service arrives through AppDeps.
import { fileURLToPath } from 'node:url';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ConfigStore } from './config/config-store.ts';
import { installAuth } from './http/auth-hook.ts';
import { invalid } from './core/errors.ts';
import { nestedDeeperThan } from './core/json-depth.ts';
import { installErrorHandler, sendError } from './http/error-handler.ts';
import { installOriginGuard, type OriginPolicy } from './http/origin-guard.ts';
import { OneLineLogController } from './http/logger.ts';
import { API_PREFIX } from './http/prefix.ts';
import { registerStaticUi } from './http/static-ui.ts';
import { registerAguiRoutes } from './chat/agui.routes.ts';
import { registerChatRoutes } from './chat/chat.routes.ts';
import { registerAgentRoutes } from './resources/agents/agents.routes.ts';
import { registerAuthRoutes } from './resources/auth/auth.routes.ts';
import { registerBindingRoutes } from './resources/bindings/bindings.routes.ts';
import { registerChannelRoutes } from './resources/channels/channels.routes.ts';
import { registerConfigRoutes } from './resources/config/config.routes.ts';
import { registerCronRoutes } from './resources/cron/cron.routes.ts';
import { registerLogRoutes } from './resources/logs/logs.routes.ts';
import { registerServerLogRoutes } from './resources/server-logs/server-logs.routes.ts';
import { registerVersionRoutes } from './resources/version/version.routes.ts';
import { LogRing } from './http/log-ring.ts';
import { registerBackupRoutes } from './resources/backup/backup.routes.ts';
import { registerMessageRoutes } from './resources/messages/messages.routes.ts';
import { registerModelRoutes } from './resources/models/models.routes.ts';
import { registerOpenAIModelRoutes } from './resources/openai-models/openai-models.routes.ts';
import { registerResponseRoutes } from './resources/responses/responses.routes.ts';
import { registerRuleRoutes } from './resources/rules/rules.routes.ts';
import { registerSessionRoutes } from './resources/sessions/sessions.routes.ts';
import { registerMemoryRoutes } from './resources/memory/memory.routes.ts';
import { registerUserRoutes } from './resources/users/users.routes.ts';
import { registerPairingRoutes } from './resources/pairing/pairing.routes.ts';
import { registerSetupRoutes } from './resources/setup/setup.routes.ts';
import { MAX_UPLOAD_BYTES } from './resources/skills/skills.schema.ts';
import { registerSkillRoutes } from './resources/skills/skills.routes.ts';
import { registerToolRoutes } from './resources/tools/tools.routes.ts';
import { registerWorkspaceRoutes } from './resources/workspace/workspace.routes.ts';
import type { Services } from './services.ts';
import { registerWebhookRoutes } from './resources/webhooks/webhooks.routes.ts';
import { registerEndpointRoutes } from './endpoints/endpoint-routes.ts';
import { createEndpointSockets } from './endpoints/endpoint-sockets.ts';
import { registerMcpRoutes } from './mcp/mcp.routes.ts';
import { registerA2ARoutes } from './a2a/a2a.routes.ts';
import { installChatGuard } from './usage/chat-guard.ts';
import { registerUsageRoutes } from './resources/usage/usage.routes.ts';
import { registerBudgetRoutes } from './resources/budgets/budgets.routes.ts';
import { attachEventSockets } from './resources/events/events.socket.ts';
import { registerEventRoutes } from './resources/events/events.routes.ts';
import { registerMetricsRoute } from './resources/metrics/metrics.routes.ts';
import { registerMonitorRoutes } from './resources/monitor/monitor.routes.ts';
import { installRequestMetrics } from './http/request-metrics.ts';

/** Nesting allowed in a JSON body: far more than any real document, far less than the stack holds. */
export const MAX_JSON_DEPTH = 64;

export interface RegisteredRoute {
  method: string;
  url: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route of the app, so tests can prove a policy holds for all of them. */
    registeredRoutes: RegisteredRoute[];
  }
}

export interface AppDeps {
  store: ConfigStore;
  /** Every service, built by createServices (services.ts); the app only registers routes over them. */
  services: Services;
  /** The server's logger (http/logger.ts createLogger), the one the services were given; none: silent. */
  logger?: FastifyBaseLogger | undefined;
  version?: string;
  /** Folder of the web UI files (default: web/ of this package). */
  webDir?: string;
  /** The logger's in-memory destination, read by GET /logs/server (default: an empty one). */
  logRing?: LogRing;
  /** The rotating log file (server.log_file), shown by GET /logs/server. */
  logFile?: string;
}

/** fastify types these factories for JSON Schema compilers; the zod ones take the route schema as well. */
const ZOD_COMPILERS = {
  buildValidator: () => validatorCompiler,
  buildSerializer: () => serializerCompiler,
} as unknown as NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>;

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { store } = deps;
  const bodyLimit = store.current.server.body_limit;
  const app = Fastify({
    ...(deps.logger ? { loggerInstance: deps.logger } : {}),
    bodyLimit,
    // Time allowed to receive a whole request; streamed responses are not limited by it.
    requestTimeout: 30_000,
    return503OnClosing: true,
    logController: new OneLineLogController(),
    // Every route here has a zod schema, compiled by fastify-type-provider-zod (set below). Naming
    // the same compilers as fastify's defaults keeps it from loading ajv and fast-json-stringify,
    // its JSON Schema compilers, at every start (about a tenth of the start-up).
    schemaController: { compilersFactory: ZOD_COMPILERS },
    // A path that is not valid percent-encoding answers in our shape, not fastify's.
    frameworkErrors: (error, _request, reply) => {
      void sendError(
        reply,
        400,
        error.code === 'FST_ERR_BAD_URL' ? 'the URL is not validly encoded' : error.message,
      );
    },
  });
  const routes: RegisteredRoute[] = [];
  app.decorate('registeredRoutes', routes);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) if (method !== 'HEAD') routes.push({ method, url: route.url });
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  installErrorHandler(app, bodyLimit, (error) => deps.services.disk.noteFailure(error));
  // An empty body with a JSON content type (DELETE and POST calls from many clients) is no body,
  // not malformed JSON; everything else goes to fastify's own parser with its prototype checks.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    void parseJson(request, text, (error, parsed) => {
      // Deeper documents are refused here, before any recursive merge or schema walk sees them.
      if (!error && nestedDeeperThan(parsed, MAX_JSON_DEPTH)) {
        done(invalid(`request body is nested too deeply (more than ${MAX_JSON_DEPTH} levels)`), undefined);
        return;
      }
      done(error, parsed);
    });
  });

  // Only multipart/form-data (skill uploads); the JSON parsers above stay as they are.
  await app.register(multipart, { limits: { fileSize: MAX_UPLOAD_BYTES, files: 1, fields: 10, parts: 11 } });

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Agent Service', version: deps.version ?? '0.0.0' },
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
      security: [{ bearer: [] }],
    },
    transform: jsonSchemaTransform,
  });

  const originPolicy = (): OriginPolicy => ({
    requireAuth: store.current.security.requireAuth,
    host: store.current.server.host,
    allowedHosts: store.current.server.allowed_hosts,
    allowedOrigins: store.current.server.allowed_origins,
  });
  installOriginGuard(app, originPolicy);
  installAuth(app, deps.services.auth, () => store.current.security.requireAuth);
  const { telemetry } = deps.services;
  installRequestMetrics(app, telemetry.metrics);
  registerMetricsRoute(app, {
    metrics: telemetry.metrics,
    auth: deps.services.auth,
    requireAuth: () => store.current.security.requireAuth,
    isPublic: () => store.current.observability.metrics_public,
  });
  // Chains' ws endpoints take the upgrades under /api/v1/endpoints/ (offered by the event sockets).
  const endpointSockets = createEndpointSockets({
    endpoints: deps.services.endpoints,
    auth: deps.services.auth,
    requireAuth: () => store.current.security.requireAuth,
    originPolicy,
  });
  app.addHook('preClose', () => endpointSockets.close());
  attachEventSockets(app, {
    hub: telemetry.hub,
    metrics: telemetry.metrics,
    auth: deps.services.auth,
    requireAuth: () => store.current.security.requireAuth,
    originPolicy,
    requireAgent: (agentId) => void deps.services.chains.agents.get(agentId),
    chainExists: (chainId) => deps.services.chains.has(chainId),
    otherUpgrade: endpointSockets.upgrade,
  });

  app.get('/health', { config: { auth: 'public' }, schema: { tags: ['health'] } }, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send('OK'),
  );
  // Readiness for load balancers and orchestrators: the database and (clustered) Redis reachable.
  app.get('/ready', { config: { auth: 'public' }, schema: { tags: ['health'] } }, async (_request, reply) => {
    const report = await deps.services.ready();
    return reply.code(report.ready ? 200 : 503).send(report);
  });
  registerStaticUi(app, deps.webDir ?? fileURLToPath(new URL('../web', import.meta.url)));
  await registerWebhookRoutes(app, deps.services.resources.webhooks);
  await registerEndpointRoutes(
    app,
    deps.services.endpoints,
    deps.services.auth,
    () => store.current.security.requireAuth,
  );
  registerA2ARoutes(app, { ...deps.services, version: deps.version ?? '0.0.0' });
  app.get(`${API_PREFIX}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());

  // Resource routes are declared relative to the prefix. The hooks, parsers and error handler set
  // on the root above apply inside this plugin too (fastify hands them down to child contexts).
  const resources = deps.services.resources;
  await app.register(
    async (api) => {
      installChatGuard(api, deps.services.usage.guard);
      registerAuthRoutes(api, resources.auth);
      registerConfigRoutes(api, resources.config);
      registerModelRoutes(api, resources.models);
      registerAgentRoutes(api, resources.agents);
      registerRuleRoutes(api, resources.rules);
      registerToolRoutes(api, resources.tools);
      registerSessionRoutes(api, resources.sessions);
      registerMemoryRoutes(api, resources.memory);
      registerWorkspaceRoutes(api, resources.workspace);
      registerSkillRoutes(api, resources.skills);
      registerChannelRoutes(api, resources.channels);
      registerBindingRoutes(api, resources.bindings);
      registerMessageRoutes(api, resources.messages);
      registerCronRoutes(api, resources.cron);
      registerLogRoutes(api, resources.logs);
      registerServerLogRoutes(api, deps.logRing ?? new LogRing(), deps.logFile);
      registerVersionRoutes(api, { version: deps.version ?? '0.0.0', db: deps.services.db, store });
      registerBackupRoutes(api, { version: deps.version ?? '0.0.0', db: deps.services.db, store });
      registerChatRoutes(api, deps.services.turns);
      registerOpenAIModelRoutes(api, resources.openaiModels);
      registerAguiRoutes(api, deps.services.turns);
      registerMcpRoutes(api, deps.services.mcp);
      registerResponseRoutes(api, resources.responses);
      registerUsageRoutes(api, resources.usage);
      registerBudgetRoutes(api, resources.budgets);
      registerEventRoutes(api);
      registerMonitorRoutes(api, resources.monitor);
      registerUserRoutes(api, resources.users);
      registerPairingRoutes(api, resources.pairing);
      registerSetupRoutes(api, resources.setup);
    },
    { prefix: API_PREFIX },
  );
  // OpenAI clients configured with base URL http://host:port/v1 reach the Responses API unchanged.
  await app.register(async (v1) => registerResponseRoutes(v1, resources.responses), {
    prefix: '/v1',
  });

  return app;
}
