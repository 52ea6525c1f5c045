// One turn as the observability sees it: its events become WebSocket events, metrics, spans
// (invoke_agent, execute_tool), a trace for the monitoring page and, at the end, one log line.
import { randomUUID } from 'node:crypto';
import { errorMessage, isAppError } from '../core/errors.ts';
import { newId } from '../core/ids.ts';
import type { Logger } from '../core/logger.ts';
import type { LiveEventType } from './live-event.ts';
import type { LiveHub } from './live-events.ts';
import type { Metrics } from './metrics.ts';
import type { MonitorState, TraceStep, TurnRecord } from './monitor-state.ts';
import type { SpanHandle, Tracing } from './tracing.ts';

/** A turn's events as TurnRunner reports them (the shape of turns/turn-events.ts, minus the ends). */
export type WatchedEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call-start'; toolCallId: string; toolCallName: string; arguments: string; toolType: string }
  | { type: 'tool-call-result'; toolCallId: string; toolCallName: string; content: string; toolType: string }
  | { type: 'usage'; usage: { promptTokens: number; completionTokens: number; totalTokens: number } };

export interface TurnStart {
  agentId: string;
  /** api, cron, telegram, ... or `subagent`. */
  channel: string;
  metadata: Record<string, string>;
  /** The api-channel account whose request started the turn. */
  owner?: string | undefined;
  requester?: string | undefined;
  /** An incoming W3C traceparent to continue. */
  traceparent?: string | undefined;
  /** The user's input (exported only with capture_content). */
  input: string;
  /** The turn is kept in a stored session. */
  stored?: boolean;
}

export interface WatchContext {
  metrics: Metrics;
  hub: LiveHub;
  tracing: Tracing | undefined;
  monitor: MonitorState;
  captureContent: boolean;
  logger: Logger;
}

interface OpenTool {
  startedAt: number;
  span: SpanHandle | undefined;
}

function parseArgs(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

export class TurnWatch {
  readonly id = `turn_${newId()}`;
  readonly record: TurnRecord;
  readonly span: SpanHandle | undefined;
  private readonly started = performance.now();
  private readonly tools = new Map<string, OpenTool>();
  private modelCalls = 0;
  private pendingText = '';

  constructor(
    private readonly context: WatchContext,
    readonly start: TurnStart,
    parent?: TurnWatch,
  ) {
    const { metrics } = context;
    this.record = {
      id: this.id,
      agentId: start.agentId,
      channel: start.channel,
      ...(start.requester ? { requester: start.requester } : {}),
      ...(start.owner ? { owner: start.owner } : {}),
      ...(parent ? { parentTurnId: parent.id } : {}),
      startedAt: Date.now(),
      status: 'running',
      inputTokens: 0,
      outputTokens: 0,
      steps: [],
      droppedSteps: 0,
    };
    if (context.tracing) {
      this.span = context.tracing.start(
        `invoke_agent ${start.agentId}`,
        parent ? 'internal' : 'server',
        parent?.span ?? start.traceparent,
        () => ({
          'gen_ai.operation.name': 'invoke_agent',
          'gen_ai.agent.id': start.agentId,
          'gen_ai.agent.name': start.agentId,
          'gen_ai.conversation.id': this.id,
          'agent_service.channel': start.channel,
          ...(context.captureContent
            ? { 'gen_ai.input.messages': JSON.stringify([{ role: 'user', content: start.input }]) }
            : {}),
        }),
      );
    }
    // Without tracing the log line and the monitor still carry a trace id (the caller's, or a new one).
    this.record.traceId =
      this.span?.traceId ??
      /^00-([0-9a-f]{32})-/u.exec(start.traceparent ?? '')?.[1] ??
      parent?.record.traceId ??
      // A random UUID's 32 hex digits: Node hands them out from a batch it fills once per 128 ids,
      // where randomBytes(16) called into OpenSSL for every turn (2.6% of a turn's CPU, measured).
      randomUUID().replaceAll('-', '');
    metrics.turnsInFlight.inc({ channel: start.channel });
    context.monitor.started(this.record);
    if (this.watched())
      this.send('status', {
        status: 'running',
        channel: start.channel,
        ...(parent ? { parentTaskId: parent.id } : {}),
      });
  }

  /** Adds a trace step (model calls report theirs through this). */
  step(step: TraceStep): void {
    this.context.monitor.addStep(this.record, step);
  }

  /** Milliseconds since the turn started. */
  elapsed(): number {
    return performance.now() - this.started;
  }

  event(event: WatchedEvent): void {
    switch (event.type) {
      case 'text-delta':
        this.sendText(event.text);
        break;
      case 'usage':
        this.modelCalls += 1;
        this.record.inputTokens += event.usage.promptTokens;
        this.record.outputTokens += event.usage.completionTokens;
        if (this.watched())
          this.send('progress', {
            progress: this.modelCalls,
            message: `model call ${this.modelCalls} finished`,
            usage: { inputTokens: this.record.inputTokens, outputTokens: this.record.outputTokens },
          });
        break;
      case 'tool-call-start': {
        this.record.currentTool = event.toolCallName;
        const span = this.context.tracing?.start(
          `execute_tool ${event.toolCallName}`,
          'internal',
          this.span,
          () => ({
            'gen_ai.operation.name': 'execute_tool',
            'gen_ai.tool.name': event.toolCallName,
            'gen_ai.tool.call.id': event.toolCallId,
            'gen_ai.tool.type': event.toolType === 'builtin' ? 'function' : 'extension',
            'agent_service.tool_type': event.toolType,
            ...(this.context.captureContent ? { 'gen_ai.tool.call.arguments': event.arguments } : {}),
          }),
        );
        this.tools.set(event.toolCallId, { startedAt: performance.now(), span });
        this.step({
          kind: 'tool',
          at: Math.round(this.elapsed()),
          toolCallId: event.toolCallId,
          tool: event.toolCallName,
          toolType: event.toolType,
          args: event.arguments,
        });
        this.send('tool', {
          tool: event.toolCallName,
          args: parseArgs(event.arguments),
          toolCallId: event.toolCallId,
          toolType: event.toolType,
        });
        break;
      }
      case 'tool-call-result': {
        const failed = event.content.startsWith('error:');
        const open = this.tools.get(event.toolCallId);
        this.tools.delete(event.toolCallId);
        const { metrics } = this.context;
        metrics.toolCalls.inc({ tool_type: event.toolType, outcome: failed ? 'error' : 'success' });
        if (open) {
          metrics.toolDuration.observe(
            { tool_type: event.toolType },
            (performance.now() - open.startedAt) / 1000,
          );
          const span = open.span;
          if (span?.recording) {
            if (this.context.captureContent) span.setAttributes({ 'gen_ai.tool.call.result': event.content });
            if (failed) span.fail(event.content.slice(0, 200), 'tool_error');
            span.end();
          }
        }
        delete this.record.currentTool;
        this.context.monitor.toolResult(this.record, event.toolCallId, event.content, Date.now());
        this.send('tool_result', {
          tool: event.toolCallName,
          result: event.content,
          toolCallId: event.toolCallId,
          toolType: event.toolType,
        });
        break;
      }
    }
  }

  /** Ends the turn: `error` set for a failed one. */
  finish(text: string | undefined, error?: unknown): void {
    const { metrics, monitor } = this.context;
    const seconds = this.elapsed() / 1000;
    const outcome = error === undefined ? 'success' : 'failure';
    const agent = metrics.agents.value(this.start.agentId);
    const channel = this.start.channel;
    metrics.turnsInFlight.dec({ channel });
    metrics.turns.inc({ agent, channel, outcome });
    metrics.turnDuration.observe({ agent, channel, outcome }, seconds);
    if (this.record.inputTokens > 0)
      metrics.turnTokens.inc({ agent, channel, direction: 'input' }, this.record.inputTokens);
    if (this.record.outputTokens > 0)
      metrics.turnTokens.inc({ agent, channel, direction: 'output' }, this.record.outputTokens);
    for (const open of this.tools.values()) open.span?.end();
    this.record.status = outcome;
    this.record.endedAt = Date.now();
    this.record.durationMs = Math.round(seconds * 1000);
    delete this.record.currentTool;
    const message = error === undefined ? undefined : errorMessage(error);
    if (message !== undefined) this.record.error = message;
    monitor.ended(this.record);
    if (this.span?.recording) {
      this.span.setAttributes({
        'gen_ai.usage.input_tokens': this.record.inputTokens,
        'gen_ai.usage.output_tokens': this.record.outputTokens,
        ...(this.context.captureContent && text !== undefined
          ? { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', content: text }]) }
          : {}),
      });
      if (message !== undefined) this.span.fail(message, isAppError(error) ? error.kind : 'error');
      this.span.end();
    }
    if (this.watched()) {
      if (message === undefined)
        this.send('done', {
          content: text ?? '',
          durationMs: this.record.durationMs,
          usage: { inputTokens: this.record.inputTokens, outputTokens: this.record.outputTokens },
        });
      else this.send('error', { message });
    }
    this.context.logger.info(
      {
        turn: this.id,
        traceId: this.record.traceId,
        agent: this.start.agentId,
        channel,
        durationMs: this.record.durationMs,
        tokens: { input: this.record.inputTokens, output: this.record.outputTokens },
        outcome,
        ...(message !== undefined ? { error: message } : {}),
      },
      'turn',
    );
  }

  /**
   * Text deltas that arrive in one turn of the event loop (one network read of the model's stream)
   * go out as one text event: far fewer frames per subscriber, in the same order.
   */
  private sendText(content: string): void {
    if (!this.context.hub.hasAgentSubscribers(this.start.agentId)) return;
    if (this.pendingText === '') setImmediate(this.flushText);
    this.pendingText += content;
  }

  private readonly flushText = (): void => {
    if (this.pendingText === '') return;
    const content = this.pendingText;
    this.pendingText = '';
    this.publish('text', { content });
  };

  /** Whether anybody watches the agent: its events are not even built otherwise. */
  private watched(): boolean {
    return this.context.hub.hasAgentSubscribers(this.start.agentId);
  }

  private send(type: LiveEventType, payload: Record<string, unknown>): void {
    const { hub } = this.context;
    if (!hub.hasAgentSubscribers(this.start.agentId)) return;
    this.flushText();
    this.publish(type, payload);
  }

  private publish(type: LiveEventType, payload: Record<string, unknown>): void {
    const { hub } = this.context;
    hub.publish({
      event: {
        id: hub.nextId(),
        type,
        agentId: this.start.agentId,
        taskId: this.id,
        timestamp: Date.now(),
        payload,
      },
      routing: { topic: 'agent', ...(this.start.owner ? { owner: this.start.owner } : {}) },
    });
  }
}
