// One rule-chain run as the observability sees it: metrics by chain and node type, a span per run and
// per node, node steps in the turn's trace, and the events of chain subscriptions (each node's
// start and end with relations, timing and error). A sub-agent's run (an isolated run of another
// agent) is also a turn of that agent: it gets a TurnWatch of its own, fed with the run's events.
import { errorMessage } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import type { ModelCaller } from '../model-providers/caller.ts';
import type { LiveEventType } from './live-event.ts';
import type { SpanHandle } from './tracing.ts';
import { TurnWatch, type WatchContext, type WatchedEvent } from './turn-watch.ts';

export type NodeEnd = (relations: string[], error: string | undefined) => void;

/** How the engine describes a run it starts (structurally its RunScope). */
export interface ObservedRun {
  turn: { agentId?: string | undefined; caller?: ModelCaller | undefined };
  depth: number;
  isolated?: boolean | undefined;
}

export class ChainWatch {
  readonly id = `run_${newId()}`;
  readonly span: SpanHandle | undefined;
  private readonly started = performance.now();
  private nodes = 0;
  /** Set for a sub-agent's run: the turn it is. */
  readonly subTurn: TurnWatch | undefined;
  private readonly agentId: string;

  constructor(
    private readonly context: WatchContext,
    readonly chainId: string,
    run: ObservedRun,
    /** The turn this run belongs to (the caller's, for a sub-agent's run). */
    private readonly turn: TurnWatch | undefined,
    parent: ChainWatch | undefined,
  ) {
    const subAgent = run.isolated === true && run.turn.agentId !== undefined && turn !== undefined;
    this.subTurn = subAgent
      ? new TurnWatch(
          context,
          {
            agentId: run.turn.agentId as string,
            channel: 'subagent',
            metadata: {},
            owner: turn.start.owner,
            requester: `agent:${turn.start.agentId}`,
            input: '',
          },
          turn,
        )
      : undefined;
    this.agentId = this.owningTurn?.start.agentId ?? chainId;
    const parentSpan = this.subTurn?.span ?? parent?.span ?? turn?.span;
    this.span = context.tracing?.start(`invoke_workflow ${chainId}`, 'internal', parentSpan, () => ({
      'gen_ai.operation.name': 'invoke_workflow',
      'agent_service.chain.id': chainId,
      'agent_service.run.id': this.id,
    }));
    if (this.watched()) this.send('status', { status: 'running', chainId });
  }

  /** The turn whose trace the run's nodes join. */
  private get owningTurn(): TurnWatch | undefined {
    return this.subTurn ?? this.turn;
  }

  node(nodeId: string, nodeType: string): NodeEnd {
    this.nodes += 1;
    const started = performance.now();
    const { tracing } = this.context;
    const span = tracing?.start(`node ${nodeType}`, 'internal', this.span, () => ({
      'agent_service.chain.id': this.chainId,
      'agent_service.node.id': nodeId,
      'agent_service.node.type': nodeType,
    }));
    if (this.watched()) this.send('progress', { phase: 'start', chainId: this.chainId, nodeId, nodeType });
    return (relations, error) => {
      const durationMs = performance.now() - started;
      const outcome = error === undefined ? 'success' : 'failure';
      const { metrics } = this.context;
      metrics.nodeRuns.inc({ node_type: nodeType, outcome });
      metrics.nodeDuration.observe({ node_type: nodeType }, durationMs / 1000);
      if (span?.recording) {
        span.setAttributes({ 'agent_service.node.relations': relations });
        if (error !== undefined) span.fail(error, 'node_failure');
        span.end();
      }
      const turn = this.owningTurn;
      turn?.step({
        kind: 'node',
        at: Math.round(turn.elapsed() - durationMs),
        durationMs: Math.round(durationMs),
        chainId: this.chainId,
        nodeId,
        nodeType,
        relations,
        ...(error !== undefined ? { error } : {}),
      });
      if (!this.watched()) return;
      this.send('progress', {
        phase: 'end',
        chainId: this.chainId,
        nodeId,
        nodeType,
        relation: relations[0] ?? '',
        relations,
        durationMs: Math.round(durationMs * 10) / 10,
        ...(error !== undefined ? { error } : {}),
      });
    };
  }

  /** Events of an isolated sub-agent run (its caller's turn does not see them). */
  event(event: { type: string }): void {
    const type = event.type;
    if (
      type === 'text-delta' ||
      type === 'usage' ||
      type === 'tool-call-start' ||
      type === 'tool-call-result'
    )
      this.subTurn?.event(event as WatchedEvent);
  }

  end(
    result: { outcome: 'success' | 'failure'; error?: string; results: Array<{ data: string }> } | undefined,
    thrown?: unknown,
  ): void {
    const durationMs = performance.now() - this.started;
    const outcome = result?.outcome ?? 'failure';
    const error = result ? result.error : errorMessage(thrown);
    const { metrics, monitor } = this.context;
    const chain = metrics.chains.value(this.chainId);
    metrics.chainRuns.inc({ chain, outcome });
    metrics.chainDuration.observe({ chain }, durationMs / 1000);
    if (this.span?.recording) {
      if (outcome === 'failure') this.span.fail(error ?? 'the run failed', 'chain_failure');
      this.span.end();
    }
    monitor.chainRun({
      id: this.id,
      chainId: this.chainId,
      ...(this.owningTurn ? { agentId: this.owningTurn.start.agentId } : {}),
      startedAt: Date.now() - Math.round(durationMs),
      durationMs: Math.round(durationMs),
      outcome,
      ...(error !== undefined && outcome === 'failure' ? { error } : {}),
      nodes: this.nodes,
    });
    const rounded = Math.round(durationMs * 10) / 10;
    if (outcome === 'success')
      this.send('done', { chainId: this.chainId, outcome, durationMs: rounded, nodes: this.nodes });
    else
      this.send('error', { chainId: this.chainId, message: error ?? 'the run failed', durationMs: rounded });
    if (this.subTurn) {
      const text = result?.results.map((message) => message.data).join('\n');
      this.subTurn.finish(
        text,
        outcome === 'failure' ? new Error(error ?? 'the sub-agent failed') : undefined,
      );
    }
  }

  /** Whether anybody watches the chain: its events are not even built otherwise. */
  private watched(): boolean {
    return this.context.hub.hasChainSubscribers(this.chainId);
  }

  private send(type: LiveEventType, payload: Record<string, unknown>): void {
    const { hub } = this.context;
    if (!hub.hasChainSubscribers(this.chainId)) return;
    const owner = this.owningTurn?.start.owner;
    hub.publish({
      event: {
        id: hub.nextId(),
        type,
        agentId: this.agentId,
        taskId: this.id,
        timestamp: Date.now(),
        payload,
      },
      routing: { topic: 'chain', chainId: this.chainId, ...(owner ? { owner } : {}) },
    });
  }
}
