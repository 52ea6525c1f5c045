// Builds a complete app on a temporary config file and data root, for tests and benchmarks.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { stringify } from 'yaml';
import { buildApp } from '../../src/app.ts';
import { ConfigStore } from '../../src/config/config-store.ts';
import { loadConfigFile, type Env } from '../../src/config/load.ts';
import type { AuthService } from '../../src/auth/auth-service.ts';
import { createServices, type ServiceOptions, type Services } from '../../src/services.ts';
import { createTestDatabase } from './test-database.ts';

export interface TestApp {
  app: FastifyInstance;
  store: ConfigStore;
  auth: AuthService;
  services: Services;
  dir: string;
  configPath: string;
  /** http://127.0.0.1:<port> when `listen` was set. */
  url: string;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Raw YAML text of the config file (wins over `config`). */
  configText?: string;
  /** Config as an object; data.root_dir defaults to a temp folder. */
  config?: Record<string, unknown>;
  env?: Env;
  /** Called with the app before it is made ready, to add routes of the test's own. */
  before?: (app: FastifyInstance) => void;
  services?: ServiceOptions;
  /** The server's logger (createLogger of http/logger.ts), given to the services and to fastify (default: none). */
  logger?: FastifyBaseLogger | undefined;
  /** Also listen on 127.0.0.1 (a random port), for tests that use real HTTP clients. */
  listen?: boolean;
}

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-0123456789';

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-service-test-'));
  const configPath = join(dir, 'config.yaml');
  const config: Record<string, unknown> = { data: { root_dir: './data' }, ...options.config };
  // TEST_DATABASE=postgres runs the app-level tests on PostgreSQL (a schema per app) instead of libsql.
  const data = config['data'] as Record<string, unknown>;
  const database =
    process.env['TEST_DATABASE'] === 'postgres' && options.configText === undefined && !data['database_url']
      ? await createTestDatabase('postgres', process.env)
      : undefined;
  if (database) config['data'] = { ...data, database_url: database.databaseUrl };
  const text = options.configText ?? stringify(config);
  await writeFile(configPath, text);
  const env = options.env ?? {};
  const store = new ConfigStore(configPath, await loadConfigFile(configPath, env), env);
  const services = await createServices(store, {
    jwtSecret: TEST_JWT_SECRET,
    ...(options.logger ? { logger: options.logger } : {}),
    ...options.services,
  });
  const app = await buildApp({ store, services, logger: options.logger });
  options.before?.(app);
  await app.ready();
  const url = options.listen ? await app.listen({ host: '127.0.0.1', port: 0 }) : '';
  return {
    app,
    store,
    auth: services.auth,
    services,
    dir,
    configPath,
    url,
    async close() {
      await app.close();
      await services.close();
      await database?.drop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
