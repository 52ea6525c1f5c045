// Composition: config in, services wired, HTTP listening. main.ts hands it the parsed flags and the
// environment; tests and benchmarks call startServer directly with their own.
import { chmod, link, mkdir, readFile, unlink } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from './app.ts';
import { ConfigStore } from './config/config-store.ts';
import { discoverConfigPath, loadConfigFile, writeDefaultConfig, type Env } from './config/load.ts';
import { DEFAULT_ADMIN_PASSWORD, type Config } from './config/schema.ts';
import { writeFileAtomic } from './core/atomic-write.ts';
import { randomToken } from './core/ids.ts';
import { createLogger, LISTEN_MARK } from './http/logger.ts';
import { prettyLogStream } from './http/pretty-log.ts';
import { logDestinations } from './http/log-destinations.ts';
import { parseUserEntry } from './auth/users.ts';
import { createServices } from './services.ts';
import { sampleRatioFromEnv } from './observability/tracing.ts';
import { defaultInstanceId } from './cluster/cluster.ts';
import { lockDataRoot, type DataRootLock } from './storage/data-root-lock.ts';

export interface ServeOptions {
  config?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  data?: string | undefined;
  cwd: string;
  env: Env;
  /** Where human-readable start-up lines go (default: stderr). */
  say?: (line: string) => void;
  logLevel?: string;
  logStream?: NodeJS.WritableStream;
  /** Human-readable log lines instead of JSON (main.ts sets it when stdout is a terminal). */
  prettyLogs?: boolean;
}

export interface RunningServer {
  app: FastifyInstance;
  store: ConfigStore;
  url: string;
  configPath: string;
  close(): Promise<void>;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

function isLoopback(host: string): boolean {
  return LOOPBACK.has(host) || (isIP(host) === 4 && host.startsWith('127.'));
}

/** Flags win over environment variables, which win over the file. */
function overrides(options: ServeOptions): (config: Config) => Config {
  const env = options.env;
  const host = options.host ?? env['AGENT_SERVICE_HOST'];
  const portText = options.port !== undefined ? String(options.port) : env['AGENT_SERVICE_PORT'];
  const dataText = options.data ?? env['AGENT_SERVICE_DATA_DIR'];
  const dataRoot = dataText ? resolve(options.cwd, dataText) : undefined;
  return (config) => ({
    ...config,
    server: {
      ...config.server,
      ...(host ? { host } : {}),
      ...(portText !== undefined && portText !== '' ? { port: Number(portText) } : {}),
    },
    data: dataRoot ? { ...config.data, root_dir: dataRoot, logs_dir: join(dataRoot, 'logs') } : config.data,
    // The standard OpenTelemetry variables turn traces on and set their sampling where the config
    // says nothing.
    observability: {
      ...config.observability,
      otlp_endpoint: config.observability.otlp_endpoint || (env['OTEL_EXPORTER_OTLP_ENDPOINT'] ?? ''),
      trace_sample_ratio: config.observability.trace_sample_ratio ?? sampleRatioFromEnv(env),
    },
  });
}

/** The package version, shown in the OpenAPI document (`agent-service status` reads it there). */
async function packageVersion(): Promise<string | undefined> {
  // src/server.ts and the bundled dist/main.js both sit one folder below package.json.
  const text = await readFile(new URL('../package.json', import.meta.url), 'utf8').catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as { version?: string }).version;
}

/** The JWT secret: security.jwtSecret, or one generated on first start and kept (0600) in the data root. */
async function jwtSecret(config: Config): Promise<string> {
  if (config.security.jwtSecret) return config.security.jwtSecret;
  const path = join(config.data.root_dir, 'secrets', 'jwt-secret');
  const existing = await readFile(path, 'utf8').then(
    (text) => text.trim(),
    () => undefined, // not created yet
  );
  if (existing !== undefined && existing.length >= 32) return existing;
  const secret = randomToken(48);
  await mkdir(join(config.data.root_dir, 'secrets'), { recursive: true, mode: 0o700 });
  if (existing !== undefined) {
    await writeFileAtomic(path, secret, { mode: 0o600 });
    await chmod(path, 0o600);
    return secret;
  }
  // Created once: instances starting together on a shared data root all keep the first one linked.
  const candidate = `${path}.${randomToken(6)}.new`;
  await writeFileAtomic(candidate, secret, { mode: 0o600 });
  try {
    await link(candidate, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(candidate).catch(() => undefined);
  }
  await chmod(path, 0o600);
  return (await readFile(path, 'utf8')).trim();
}

/** A failed listen in words, with what to do: another port for a busy one. */
function listenFailure(error: unknown, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE')
    return new Error(
      `port ${port} on ${host} is already in use (another server is listening there); ` +
        `start on another port with --port <n> (or set server.port in the config file)`,
      { cause: error },
    );
  if (code === 'EACCES')
    return new Error(`port ${port} on ${host} needs more privileges; use a port above 1023 with --port <n>`, {
      cause: error,
    });
  if (code === 'EADDRNOTAVAIL')
    return new Error(`${host} is not an address of this machine; set --host (or server.host)`, {
      cause: error,
    });
  return error instanceof Error ? error : new Error(String(error));
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const say = options.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const found = await discoverConfigPath(options.config, options.cwd);
  if (!found.exists) {
    await writeDefaultConfig(found.path);
    say(`Wrote a default configuration to ${found.path}`);
  }
  const parsed = await loadConfigFile(found.path, options.env);
  const store = new ConfigStore(found.path, parsed, options.env, overrides(options));
  const config = store.current;
  if (!Number.isInteger(config.server.port) || config.server.port < 0 || config.server.port > 65535) {
    throw new Error(`invalid port: ${config.server.port}`);
  }
  await mkdir(config.data.root_dir, { recursive: true, mode: 0o700 });
  // Embedded mode: one server per data root (clustered mode coordinates through Redis instead).
  const lock = config.cluster.redis_url
    ? undefined
    : await lockDataRoot(config.data.root_dir, `${config.server.host}:${config.server.port}`);
  try {
    return await serve(options, say, store, found.path, lock);
  } catch (error) {
    await lock?.release();
    throw error;
  }
}

async function serve(
  options: ServeOptions,
  say: (line: string) => void,
  store: ConfigStore,
  configPath: string,
  lock: DataRootLock | undefined,
): Promise<RunningServer> {
  const config = store.current;
  const version = (await packageVersion()) ?? '0.0.0';
  // Pretty lines on a terminal; the ring behind GET /logs/server and the log file keep JSON.
  const logs = logDestinations(
    config,
    options.prettyLogs ? prettyLogStream(options.logStream ?? process.stdout) : options.logStream,
  );
  // One logger, made before the services and given to each; fastify writes its request lines to it.
  // Clustered mode: every line names the instance that wrote it.
  const logger = createLogger(
    options.logLevel ?? config.server.log_level,
    logs.stream,
    config.cluster.redis_url ? { instance: config.cluster.instance_id || defaultInstanceId() } : undefined,
  );
  const services = await createServices(store, {
    jwtSecret: await jwtSecret(config),
    serviceVersion: version,
    deferStart: true,
    ...(logger ? { logger } : {}),
  }).catch((error: unknown) => {
    logs.close();
    throw error;
  });
  const app = await buildApp({
    store,
    services,
    logger,
    version,
    logRing: logs.ring,
    ...(logs.file ? { logFile: logs.file } : {}),
  });
  if (services.cluster.mode === 'clustered') {
    say(`Clustered mode: instance ${services.cluster.instanceId}, key prefix ${services.cluster.prefix}`);
  }

  if (!isLoopback(config.server.host) && !config.security.requireAuth) {
    say(
      `WARNING: listening on ${config.server.host} with security.requireAuth: false. Anyone who can reach this ` +
        'address can use every API. Set security.requireAuth: true or bind to 127.0.0.1.',
    );
  }
  const admin = config.security.users['admin'];
  if (admin !== undefined && parseUserEntry('admin', admin).password === DEFAULT_ADMIN_PASSWORD) {
    say(
      'WARNING: user "admin" still has the built-in default password. Change it in the web UI (Settings > ' +
        'Password), with `agent-service login` then `agent-service password`, or with PUT /api/v1/auth/password.',
    );
  }

  if (Object.keys(config.models.providers).length === 0) {
    say(
      'No model provider is configured: agents answer with the built-in demo model. Add one in the web UI ' +
        '(Settings > Model providers), with `agent-service providers add`, under models.providers in the ' +
        'config file, or with POST /api/v1/config/models/providers.',
    );
  }
  for (const problem of services.models.problems()) say(`WARNING: ${problem}`);

  let address: string;
  try {
    address = await app.listen({
      host: config.server.host,
      port: config.server.port,
      listenTextResolver: () => LISTEN_MARK,
    });
  } catch (error) {
    await app.close().catch(() => undefined);
    await services.close().catch(() => undefined);
    logs.close();
    throw listenFailure(error, config.server.host, config.server.port);
  }
  await lock?.update(new URL(address).host);
  // Only now that the server listens: cron tasks fire and chat platform accounts connect.
  await services.start();
  say(`Agent Service listening on ${address} (config: ${configPath}, data: ${config.data.root_dir})`);
  say(`Web UI: ${address}/ui/`);
  return {
    app,
    store,
    url: address,
    configPath,
    async close() {
      try {
        // Channels take no new messages while requests finish; their turns in flight go on.
        services.channels.drain();
        await app.close();
        await services.close();
      } finally {
        logs.close();
        await lock?.release();
      }
    },
  };
}
