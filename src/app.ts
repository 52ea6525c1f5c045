// buildApp: the fastify instance with every route, the auth policy and the error handler. It does
// no I/O of its own: every service arrives through AppDeps, so tests build it with fakes.
import { fileURLToPath } from 'node:url';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { ConfigStore } from './config/config-store.ts';
import { installAuth } from './http/auth-hook.ts';
import { invalid } from './core/errors.ts';
import { nestedDeeperThan } from './core/json-depth.ts';
import { installErrorHandler, sendError } from './http/error-handler.ts';
import { installOriginGuard } from './http/origin-guard.ts';
import { OneLineLogController } from './http/logger.ts';
import { registerStaticUi } from './http/static-ui.ts';
import { registerAuthRoutes } from './resources/auth/auth.routes.ts';
import type { AuthService } from './auth/auth-service.ts';
import { registerLogRoutes } from './resources/logs/logs.routes.ts';
import { registerCronRoutes } from './resources/cron/cron.routes.ts';
import { registerConfigRoutes } from './resources/config/config.routes.ts';
import { ConfigService } from './resources/config/config.service.ts';
import { ModelsService } from './resources/config/models.service.ts';
import { registerAgentRoutes } from './resources/agents/agents.routes.ts';
import { registerRuleRoutes } from './resources/rules/rules.routes.ts';
import { registerChatRoutes } from './chat/chat.routes.ts';
import { registerBindingRoutes } from './resources/channels/bindings.routes.ts';
import { registerChannelRoutes } from './resources/channels/channels.routes.ts';
import { ChannelsService } from './resources/channels/channels.service.ts';
import { registerSendRoutes } from './resources/channels/send.routes.ts';
import { MAX_UPLOAD_BYTES, registerSkillRoutes } from './resources/skills/skills.routes.ts';
import { SkillService } from './resources/skills/skills.service.ts';
import { registerSessionRoutes } from './resources/sessions/sessions.routes.ts';
import { registerToolRoutes } from './resources/tools/tools.routes.ts';
import { registerWorkspaceRoutes } from './resources/workspace/workspace.routes.ts';
import type { Services } from './services.ts';

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
  auth: AuthService;
  services: Services;
  logger?: FastifyServerOptions['logger'];
  version?: string;
  /** Folder of the web UI files (default: web/ of this package). */
  webDir?: string;
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { store } = deps;
  const bodyLimit = store.current.server.body_limit;
  const app = Fastify({
    logger: deps.logger ?? false,
    bodyLimit,
    // Time allowed to receive a whole request; streamed responses are not limited by it.
    requestTimeout: 30_000,
    return503OnClosing: true,
    logController: new OneLineLogController(),
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
  installErrorHandler(app, bodyLimit);
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

  installOriginGuard(app, () => ({
    requireAuth: store.current.security.requireAuth,
    host: store.current.server.host,
    allowedHosts: store.current.server.allowed_hosts,
    allowedOrigins: store.current.server.allowed_origins,
  }));
  installAuth(app, deps.auth, () => store.current.security.requireAuth);

  app.get('/health', { config: { auth: 'public' }, schema: { tags: ['health'] } }, async (_request, reply) =>
    reply.type('text/plain; charset=utf-8').send('OK'),
  );
  registerStaticUi(app, deps.webDir ?? fileURLToPath(new URL('../web', import.meta.url)));
  app.get('/api/v1/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  registerAuthRoutes(app, deps.auth, store.current.security.loginRateLimit);
  registerConfigRoutes(app, new ConfigService(store), new ModelsService(store));
  const { chains, registry, sessions, turns } = deps.services;
  registerAgentRoutes(app, chains);
  registerRuleRoutes(app, chains, registry, () => store.current.server.request_timeout_ms);
  registerToolRoutes(app, chains);
  registerSessionRoutes(app, sessions);
  registerWorkspaceRoutes(app, chains, deps.services.workspace);
  registerSkillRoutes(app, new SkillService(chains, deps.services.workspace, deps.services.skillsDir));
  registerChannelRoutes(app, new ChannelsService(store));
  registerBindingRoutes(app, store, chains);
  registerSendRoutes(app, store, deps.services.channels, {
    requireAgent: (agentId) => void chains.get(agentId, { kind: 'agent' }),
    workspace: deps.services.workspace,
  });
  registerChatRoutes(app, turns);
  registerCronRoutes(app, deps.services.scheduler);
  registerLogRoutes(app, deps.services.engine.runLogs);

  return app;
}
