// The Prometheus metrics of one server: a registry of its own (never prom-client's global one) with
// every family the service reports. Labels are bounded: ids the operator names (agents, chains,
// providers, models) are capped per label, everything else is a short fixed vocabulary. No user id,
// chat id or session key is ever a label.
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { FastCounter as Counter, FastGauge, FastHistogram as Histogram } from './fast-metrics.ts';

const PREFIX = 'agent_service_';
/** Distinct values one open-vocabulary label may take; later values are reported as `other`. */
export const MAX_LABEL_VALUES = 100;

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const FAST_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/** Keeps a label's values within MAX_LABEL_VALUES distinct ones. */
export class BoundedLabel {
  private readonly seen = new Set<string>();
  constructor(private readonly limit = MAX_LABEL_VALUES) {}

  value(raw: string | undefined): string {
    const text = raw === undefined || raw === '' ? 'none' : raw.slice(0, 64);
    if (this.seen.has(text)) return text;
    if (this.seen.size >= this.limit) return 'other';
    this.seen.add(text);
    return text;
  }
}

export interface MetricsSources {
  /** Connection state of every configured channel account. */
  channelStates(): Array<{ platform: string; state: string }>;
  /** Open WebSocket subscribers by route kind (agent, chain). */
  subscribers(): Record<string, number>;
}

export class Metrics {
  readonly registry = new Registry();
  readonly agents = new BoundedLabel();
  readonly chains = new BoundedLabel();
  readonly providers = new BoundedLabel();
  readonly models = new BoundedLabel();
  readonly routes = new BoundedLabel(300);

  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route'>;
  readonly turns: Counter<'agent' | 'channel' | 'outcome'>;
  readonly turnDuration: Histogram<'agent' | 'channel' | 'outcome'>;
  readonly turnsInFlight: FastGauge<'channel'>;
  readonly turnTokens: Counter<'agent' | 'channel' | 'direction'>;
  readonly modelCalls: Counter<'provider' | 'model' | 'outcome'>;
  readonly modelDuration: Histogram<'provider' | 'model'>;
  readonly modelFirstToken: Histogram<'provider' | 'model'>;
  readonly modelErrors: Counter<'provider' | 'model' | 'kind'>;
  readonly modelTokens: Counter<'provider' | 'model' | 'direction'>;
  readonly toolCalls: Counter<'tool_type' | 'outcome'>;
  readonly toolDuration: Histogram<'tool_type'>;
  readonly chainRuns: Counter<'chain' | 'outcome'>;
  readonly chainDuration: Histogram<'chain'>;
  readonly nodeRuns: Counter<'node_type' | 'outcome'>;
  readonly nodeDuration: Histogram<'node_type'>;
  readonly channelIn: Counter<'platform'>;
  readonly channelOut: Counter<'platform' | 'outcome'>;
  readonly cronFires: Counter<'outcome'>;
  readonly cronLateness: Histogram<never>;
  readonly sessionTurns: Counter<'channel'>;
  readonly compactions: Counter<never>;
  readonly budgetEvents: Counter<'budget' | 'event'>;
  readonly wsEvents: Counter<'type'>;
  readonly wsDropped: Counter<'reason'>;
  readonly wsConnections: Counter<'route'>;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    const counter = <L extends string>(name: string, help: string, labelNames: L[]): Counter<L> =>
      new Counter({ name: PREFIX + name, help, labelNames, registers });
    const histogram = <L extends string>(
      name: string,
      help: string,
      labelNames: L[],
      buckets = SECONDS,
    ): Histogram<L> => new Histogram({ name: PREFIX + name, help, labelNames, buckets, registers });

    this.httpRequests = counter('http_requests_total', 'HTTP requests answered', [
      'method',
      'route',
      'status',
    ]);
    this.httpDuration = histogram(
      'http_request_duration_seconds',
      'Time to answer an HTTP request',
      ['method', 'route'],
      FAST_SECONDS,
    );
    this.turns = counter('turns_total', 'Agent turns finished', ['agent', 'channel', 'outcome']);
    this.turnDuration = histogram('turn_duration_seconds', 'Duration of agent turns', [
      'agent',
      'channel',
      'outcome',
    ]);
    this.turnsInFlight = new FastGauge({
      name: `${PREFIX}turns_in_flight`,
      help: 'Agent turns running now',
      labelNames: ['channel'],
      registers,
    });
    this.turnTokens = counter('turn_tokens_total', 'Tokens used by agent turns', [
      'agent',
      'channel',
      'direction',
    ]);
    this.modelCalls = counter('model_calls_total', 'Model provider calls', ['provider', 'model', 'outcome']);
    this.modelDuration = histogram('model_call_duration_seconds', 'Duration of model provider calls', [
      'provider',
      'model',
    ]);
    this.modelFirstToken = histogram(
      'model_time_to_first_token_seconds',
      'Time from a model call to its first streamed output',
      ['provider', 'model'],
    );
    this.modelErrors = counter('model_errors_total', 'Failed model provider calls', [
      'provider',
      'model',
      'kind',
    ]);
    this.modelTokens = counter('model_tokens_total', 'Tokens reported by model providers', [
      'provider',
      'model',
      'direction',
    ]);
    this.toolCalls = counter('tool_calls_total', 'Tool calls made by agents', ['tool_type', 'outcome']);
    this.toolDuration = histogram('tool_call_duration_seconds', 'Duration of tool calls', ['tool_type']);
    this.chainRuns = counter('chain_runs_total', 'Rule-chain runs (agents and rule chains)', [
      'chain',
      'outcome',
    ]);
    this.chainDuration = histogram('chain_run_duration_seconds', 'Duration of rule-chain runs', ['chain']);
    this.nodeRuns = counter('node_runs_total', 'Rule-chain node runs', ['node_type', 'outcome']);
    this.nodeDuration = histogram(
      'node_run_duration_seconds',
      'Duration of node runs',
      ['node_type'],
      FAST_SECONDS,
    );
    this.channelIn = counter(
      'channel_messages_received_total',
      'Chat-platform messages that started a turn',
      ['platform'],
    );
    this.channelOut = counter('channel_messages_sent_total', 'Replies sent to chat platforms', [
      'platform',
      'outcome',
    ]);
    new Gauge({
      name: `${PREFIX}channel_connections`,
      help: 'Channel accounts by platform and connection state',
      labelNames: ['platform', 'state'],
      registers,
      collect() {
        this.reset();
        for (const { platform, state } of sources.channelStates()) this.inc({ platform, state });
      },
    });
    this.cronFires = counter('cron_fires_total', 'Cron task runs', ['outcome']);
    this.cronLateness = new Histogram({
      name: `${PREFIX}cron_fire_lateness_seconds`,
      help: 'How late a cron run started after its scheduled time',
      labelNames: [],
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60],
      registers,
    });
    this.sessionTurns = counter('session_turns_total', 'Turns written to a stored session', ['channel']);
    this.compactions = counter('session_compactions_total', 'Session histories compacted', []);
    // Budget ids come from the config (a handful an operator wrote), so they are bounded labels.
    this.budgetEvents = counter(
      'budget_events_total',
      'Budget warnings (80%), limits reached and calls blocked',
      ['budget', 'event'],
    );
    new Gauge({
      name: `${PREFIX}websocket_subscribers`,
      help: 'Open WebSocket event subscribers',
      labelNames: ['route'],
      registers,
      collect() {
        this.reset();
        for (const [route, count] of Object.entries(sources.subscribers())) this.set({ route }, count);
      },
    });
    this.wsConnections = counter('websocket_connections_total', 'WebSocket subscriptions opened', ['route']);
    this.wsEvents = counter('websocket_events_total', 'Events published to WebSocket subscribers', ['type']);
    this.wsDropped = counter('websocket_subscribers_dropped_total', 'Subscribers closed by the server', [
      'reason',
    ]);
  }

  private defaultsStarted = false;

  /**
   * The text exposition of every family. prom-client's process and Node.js families (event-loop lag,
   * memory, CPU, handles, GC) start with the first scrape: their samplers run for the rest of the
   * process, which a server that nobody scrapes (or a test app) need not pay for.
   */
  async scrape(): Promise<{ contentType: string; body: string }> {
    if (!this.defaultsStarted) {
      this.defaultsStarted = true;
      collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
    }
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
