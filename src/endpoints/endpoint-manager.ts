// The endpoints of the loaded chains (RuleGo's metadata.endpoints), started when a chain goes into
// service and stopped when it leaves or is replaced (hot reload). http and ws routes are served by
// every instance under /api/v1/endpoints (endpoint-routes.ts, endpoint-sockets.ts); a schedule or an MQTT subscription is held
// by one instance of a cluster at a time, through the cluster lease (another takes over if it dies).
import { Cron } from 'croner';
import { whileHeld, type ConnectionLease } from '../cluster/lease.ts';
import type { RuleChainDefinition } from '../engine/dsl.ts';
import type { EndpointDefinition, EndpointRouter } from '../engine/endpoint-dsl.ts';
import type { RuleEngine } from '../engine/engine.ts';
import { newMessage } from '../engine/message.ts';
import { guardedAddress } from '../engine/nodes/network-guard.ts';
import type { NetworkPolicy, RuleMessage, RunResult } from '../engine/types.ts';

export interface HttpRoute {
  chainId: string;
  endpointId: string;
  /** http: a request answered with the run's result; ws: a WebSocket, one run per message. */
  protocol: 'http' | 'ws';
  method: string;
  /** Segments of the path: text, `:name` parameters, or a final `*`. */
  segments: string[];
  path: string;
  /** Needs the server's auth unless the endpoint's configuration says `auth: false`. */
  auth: boolean;
  wait: boolean;
  target: string;
  /** Aborts when the chain's endpoints stop (the chain is saved again, disabled or deleted). */
  stopped: AbortSignal;
}

interface Started {
  routes: HttpRoute[];
  stop: AbortController;
}

export interface EndpointLogger {
  warn(details: Record<string, unknown>, text: string): void;
}

export class EndpointManager {
  private readonly started = new Map<string, Started>();

  constructor(
    private readonly engine: RuleEngine,
    private readonly lease: ConnectionLease,
    private readonly network: NetworkPolicy,
    private readonly logger?: EndpointLogger,
  ) {
    engine.onChainChange((id, definition) => this.apply(id, definition));
  }

  /** Stops the endpoints of `chainId`, then starts those of its new definition (if any). */
  apply(chainId: string, definition: RuleChainDefinition | undefined): void {
    this.started.get(chainId)?.stop.abort();
    this.started.delete(chainId);
    const endpoints = definition?.metadata.endpoints ?? [];
    if (endpoints.length === 0) return;
    const stop = new AbortController();
    const routes: HttpRoute[] = [];
    for (const endpoint of endpoints) {
      for (const router of endpoint.routers) {
        const target = targetOf(chainId, router);
        if (endpoint.type === 'http' || endpoint.type === 'ws')
          routes.push(httpRoute(chainId, endpoint, router, target, stop.signal));
        else this.hold(chainId, endpoint, router, target, stop.signal);
      }
    }
    this.started.set(chainId, { routes, stop });
  }

  /** The http route of a request (or with `protocol: 'ws'`, the ws route of an upgrade), with its path parameters. */
  match(
    method: string,
    path: string,
    protocol: HttpRoute['protocol'] = 'http',
  ): { route: HttpRoute; params: Record<string, string> } | undefined {
    const parts = path.split('/').filter((part) => part !== '');
    for (const { routes } of this.started.values()) {
      for (const route of routes) {
        if (route.protocol !== protocol) continue;
        if (route.method !== method && !(route.method === 'GET' && method === 'HEAD')) continue;
        const params = matchPath(route.segments, parts);
        if (params) return { route, params };
      }
    }
    return undefined;
  }

  routes(): HttpRoute[] {
    return [...this.started.values()].flatMap((started) => started.routes);
  }

  run(target: string, message: RuleMessage, signal?: AbortSignal): Promise<RunResult> {
    return this.engine.execute(target, message, signal ? { signal } : {});
  }

  close(): void {
    for (const started of this.started.values()) started.stop.abort();
    this.started.clear();
  }

  private hold(
    chainId: string,
    endpoint: EndpointDefinition,
    router: EndpointRouter,
    target: string,
    signal: AbortSignal,
  ) {
    const key = `endpoint:${chainId}:${endpoint.id}:${router.id ?? router.from.path}`;
    const work = async (held: AbortSignal): Promise<void> => {
      try {
        if (endpoint.type === 'schedule') await this.schedule(router, target, held);
        else await this.subscribe(endpoint, router, target, held);
      } catch (error) {
        // Said in the log, then tried again (a broker that is down now may be up later).
        const details = { chainId, endpoint: endpoint.id, err: String(error) };
        this.logger?.warn(details, 'chain endpoint failed; retrying in 5 s');
        await Promise.race([aborted(held), new Promise((resolve) => setTimeout(resolve, 5000).unref())]);
      }
    };
    void whileHeld(this.lease, key, signal, work).catch(() => undefined);
  }

  /** RuleGo's schedule endpoint: from.path is a cron expression (seconds first when it has six fields). */
  private async schedule(router: EndpointRouter, target: string, signal: AbortSignal): Promise<void> {
    const job = new Cron(router.from.path, { protect: true }, async () => {
      const message = newMessage('', { type: 'SCHEDULE', metadata: { schedule: router.from.path } });
      await this.run(target, message).catch(() => undefined);
    });
    await aborted(signal);
    job.stop();
  }

  /** RuleGo's mqtt endpoint: from.path is the topic filter; each message runs the chain. */
  private async subscribe(
    endpoint: EndpointDefinition,
    router: EndpointRouter,
    target: string,
    signal: AbortSignal,
  ) {
    const config = endpoint.configuration ?? {};
    const server = String(config['server'] ?? '');
    const match = /^(?:[a-z]+:\/\/)?([^:/]+)(?::(\d+))?/i.exec(server);
    if (!match) throw new Error(`mqtt endpoint "${endpoint.id}": server "${server}" is not host:port`);
    const port = Number(match[2] ?? 1883);
    const address = await guardedAddress(this.network, match[1] ?? '', port);
    const mqtt = await import('mqtt');
    const client = await mqtt.connectAsync({
      host: address,
      port,
      ...(config['username']
        ? { username: String(config['username']), password: String(config['password'] ?? '') }
        : {}),
      reconnectPeriod: 5000,
    });
    client.on('message', (topic, payload) => {
      const text = payload.toString('utf8');
      const message = newMessage(text, {
        type: topic,
        dataType: isJson(text) ? 'JSON' : 'TEXT',
        metadata: { topic },
      });
      void this.run(target, message).catch(() => undefined);
    });
    await client.subscribeAsync(router.from.path, { qos: Number(config['qos'] ?? 0) as 0 | 1 | 2 });
    await aborted(signal);
    await client.endAsync(true).catch(() => undefined);
  }
}

export function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/** The chain a router runs: to.path (RuleGo's `chain:<id>` form too), default the chain itself. */
function targetOf(chainId: string, router: EndpointRouter): string {
  const path = (router.to?.path ?? '').replace(/^chain:/, '').trim();
  return path === '' ? chainId : (path.split(':')[0] ?? chainId);
}

function httpRoute(
  chainId: string,
  endpoint: EndpointDefinition,
  router: EndpointRouter,
  target: string,
  stopped: AbortSignal,
): HttpRoute {
  const path = `/${router.from.path.replace(/^\/+/, '')}`;
  const protocol = endpoint.type === 'ws' ? 'ws' : 'http';
  return {
    chainId,
    endpointId: endpoint.id,
    protocol,
    // RuleGo's ws routes are GET (the upgrade); an http route takes the method of its params.
    method: protocol === 'ws' ? 'GET' : (router.params?.[0] ?? 'POST').toUpperCase(),
    segments: path.split('/').filter((part) => part !== ''),
    path,
    auth: endpoint.configuration?.['auth'] !== false,
    wait: router.to?.wait !== false,
    target,
    stopped,
  };
}

function matchPath(segments: string[], parts: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let index = 0; index < segments.length; index += 1) {
    const segment = segments[index] as string;
    if (segment === '*') {
      params['*'] = parts.slice(index).join('/');
      return params;
    }
    const part = parts[index];
    if (part === undefined) return undefined;
    if (segment.startsWith(':')) params[segment.slice(1)] = decodeURIComponent(part);
    else if (segment !== part) return undefined;
  }
  return parts.length === segments.length ? params : undefined;
}
