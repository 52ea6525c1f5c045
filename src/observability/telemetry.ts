// The observability of one server, built once by services.ts: Prometheus metrics, the live event hub
// behind the WebSocket API, OpenTelemetry traces (only when an endpoint is configured), the state of
// the monitoring page and one log line per turn. The turn runner, the rule engine and the model
// registry report to it through small observer interfaces; it knows nothing of them.
import { silentLogger, type Logger } from '../core/logger.ts';
import { UNATTRIBUTED, type ModelCaller } from '../model-providers/caller.ts';
import type { ModelProvider } from '../model-providers/types.ts';
import { ChainWatch, type NodeEnd, type ObservedRun } from './chain-watch.ts';
import { LiveHub, type LiveTransport } from './live-events.ts';
import { Metrics } from './metrics.ts';
import { callerTurn, watchProvider } from './model-watch.ts';
import { MonitorState } from './monitor-state.ts';
import { createTracing, type Tracing } from './tracing.ts';
import { TurnWatch, type TurnStart, type WatchContext } from './turn-watch.ts';

export interface ObservabilitySettings {
  otlpEndpoint: string;
  captureContent: boolean;
  /** Share of new traces recorded (default 1). */
  traceSampleRatio?: number;
  serviceName?: string;
  serviceVersion?: string;
  /** Bytes a WebSocket subscriber may hold unsent before it is dropped. */
  maxBufferedBytes?: number;
}

export interface TelemetryOptions extends ObservabilitySettings {
  transport?: LiveTransport;
  /** Where the line of each turn goes. */
  logger?: Logger;
  channelStates?: () => Array<{ platform: string; state: string }>;
}

/** What the rule engine calls for each run (see engine/run-observer.ts). */
export interface RunWatch {
  node(nodeId: string, nodeType: string): NodeEnd;
  event(event: { type: string }): void;
  end(
    result: { outcome: 'success' | 'failure'; error?: string; results: Array<{ data: string }> } | undefined,
    thrown?: unknown,
  ): void;
  /** The run's turn context with the sub-agent turn it is as its caller's turn (sub-agent runs only). */
  turnContext?<T extends { caller?: ModelCaller | undefined }>(turn: T): T;
}

export class Telemetry {
  readonly metrics: Metrics;
  readonly hub: LiveHub;
  readonly monitor = new MonitorState();
  private readonly context: WatchContext;
  private readonly providers = new WeakMap<ModelProvider, ModelProvider>();

  private constructor(
    options: TelemetryOptions,
    readonly tracing: Tracing | undefined,
  ) {
    this.hub = new LiveHub({
      ...(options.maxBufferedBytes ? { maxBufferedBytes: options.maxBufferedBytes } : {}),
      ...(options.transport ? { transport: options.transport } : {}),
      onSent: (type, count) => this.metrics.wsEvents.inc({ type }, count),
      onDropped: (reason) => this.metrics.wsDropped.inc({ reason }),
    });
    this.metrics = new Metrics({
      channelStates: options.channelStates ?? (() => []),
      subscribers: () => this.hub.counts(),
    });
    this.context = {
      metrics: this.metrics,
      hub: this.hub,
      tracing,
      monitor: this.monitor,
      captureContent: options.captureContent,
      logger: options.logger ?? silentLogger,
    };
  }

  static async create(options: TelemetryOptions): Promise<Telemetry> {
    const tracing = options.otlpEndpoint
      ? await createTracing({
          endpoint: options.otlpEndpoint,
          serviceName: options.serviceName ?? 'agent-service',
          serviceVersion: options.serviceVersion ?? '0.0.0',
          ...(options.traceSampleRatio !== undefined ? { sampleRatio: options.traceSampleRatio } : {}),
        })
      : undefined;
    return new Telemetry(options, tracing);
  }

  /** Where a cron run or channel message reports the channel ("channel" metadata of the turn). */
  turnStarted(start: TurnStart): TurnWatch {
    const watch = new TurnWatch(this.context, start);
    const { channel, metadata } = start;
    if (channel === 'cron') {
      const scheduledAt = Number(metadata['scheduledAt']);
      const lateness = Number.isFinite(scheduledAt) && scheduledAt > 0 ? Date.now() - scheduledAt : undefined;
      if (lateness !== undefined) this.metrics.cronLateness.observe(Math.max(0, lateness) / 1000);
      this.monitor.cronFire({
        taskId: metadata['cronTaskId'] ?? '',
        agentId: start.agentId,
        turnId: watch.id,
        ...(lateness !== undefined ? { scheduledAt, latenessMs: Math.max(0, lateness) } : {}),
        startedAt: Date.now(),
      });
    } else if (channel !== 'api' && channel !== 'subagent') {
      this.metrics.channelIn.inc({ platform: channel });
    }
    return watch;
  }

  /** Ends a turn; the channel and cron counters follow its outcome. */
  turnEnded(watch: TurnWatch, text: string | undefined, error?: unknown): void {
    watch.finish(text, error);
    const { channel, metadata } = watch.start;
    const outcome = error === undefined ? 'success' : 'failure';
    if (channel === 'cron') {
      this.metrics.cronFires.inc({ outcome });
      this.monitor.cronEnded(metadata['cronTaskId'] ?? '', watch.id, outcome, watch.record.durationMs ?? 0);
    } else if (channel !== 'api' && channel !== 'subagent') {
      this.metrics.channelOut.inc({ platform: channel, outcome });
    }
    if (watch.start.stored === true) this.metrics.sessionTurns.inc({ channel });
  }

  /** The rule engine's hook: called for every run it starts. */
  readonly runObserver = {
    chainStart: (chainId: string, run: ObservedRun, parent: RunWatch | undefined): RunWatch => {
      const turn = callerTurn(run.turn.caller);
      const watch = new ChainWatch(this.context, chainId, run, turn, parent as ChainWatch | undefined);
      const subTurn = watch.subTurn;
      if (!subTurn) return watch;
      return Object.assign(watch, {
        turnContext: <T extends { caller?: ModelCaller | undefined }>(context: T): T => ({
          ...context,
          caller: {
            ...context.caller,
            attribution: context.caller?.attribution ?? UNATTRIBUTED,
            turn: subTurn,
          },
        }),
      });
    },
  };

  /** The provider with its calls measured and traced (kept per provider, so wrapping is cheap). */
  provider(provider: ModelProvider): ModelProvider {
    let watched = this.providers.get(provider);
    if (!watched) {
      watched = watchProvider(provider, this.context);
      this.providers.set(provider, watched);
    }
    return watched;
  }

  /** A budget warned (80%), reached its limit or blocked a call. */
  budgetEvent(budget: string, event: string): void {
    this.metrics.budgetEvents.inc({ budget, event });
  }

  /** A session history was compacted. */
  compacted(): void {
    this.metrics.compactions.inc();
  }

  /** Sends what is buffered to the collector (tests, shutdown). */
  async flush(): Promise<void> {
    await this.tracing?.flush();
  }

  async close(): Promise<void> {
    await this.hub.close();
    await this.tracing?.close();
  }
}
