// What the live monitoring page shows, kept in memory and bounded: the turns running now, the last
// finished turns with their traces, recent chain runs and cron fires. Per instance: in clustered mode
// each instance reports its own work (the WebSocket stream carries every instance's events).

/** One step of a turn's trace. */
export type TraceStep =
  | {
      kind: 'model';
      at: number;
      durationMs: number;
      provider: string;
      model: string;
      firstTokenMs?: number;
      inputTokens?: number;
      outputTokens?: number;
      finishReason?: string;
      error?: string;
    }
  | {
      kind: 'tool';
      at: number;
      durationMs?: number;
      toolCallId: string;
      tool: string;
      toolType: string;
      args: string;
      result?: string;
    }
  | {
      kind: 'node';
      at: number;
      durationMs: number;
      chainId: string;
      nodeId: string;
      nodeType: string;
      relations: string[];
      error?: string;
    };

export interface TurnRecord {
  id: string;
  agentId: string;
  channel: string;
  /** Who asked: a user, an api account, a chat-platform sender, or a cron task. */
  requester?: string;
  /** The api account that started it (monitor views of an account show only these). */
  owner?: string;
  traceId?: string;
  startedAt: number;
  endedAt?: number;
  durationMs?: number;
  status: 'running' | 'success' | 'failure';
  error?: string;
  /** The tool running now, if any. */
  currentTool?: string;
  inputTokens: number;
  outputTokens: number;
  /** Sub-agent turns name the turn that called them. */
  parentTurnId?: string;
  steps: TraceStep[];
  /** Steps left out past MAX_STEPS. */
  droppedSteps: number;
}

export interface ChainRunRecord {
  id: string;
  chainId: string;
  agentId?: string;
  startedAt: number;
  durationMs?: number;
  outcome?: 'success' | 'failure';
  error?: string;
  nodes: number;
}

export interface CronFireRecord {
  taskId: string;
  agentId: string;
  turnId: string;
  scheduledAt?: number;
  startedAt: number;
  latenessMs?: number;
  durationMs?: number;
  outcome?: 'success' | 'failure';
}

export const MAX_STEPS = 200;
/** Characters of tool arguments and results kept in a trace step. */
export const MAX_STEP_TEXT = 2000;

function cut(text: string): string {
  return text.length > MAX_STEP_TEXT ? `${text.slice(0, MAX_STEP_TEXT)}… [${text.length} characters]` : text;
}

/** A ring of the newest `size` items, newest first when listed. */
class Ring<T> {
  private readonly items: T[] = [];
  constructor(private readonly size: number) {}
  add(item: T): void {
    this.items.push(item);
    if (this.items.length > this.size) this.items.shift();
  }
  list(): T[] {
    return [...this.items].reverse();
  }
  find(predicate: (item: T) => boolean): T | undefined {
    return this.items.find(predicate);
  }
}

export class MonitorState {
  readonly inFlight = new Map<string, TurnRecord>();
  private readonly finished: Ring<TurnRecord>;
  private readonly chainRuns: Ring<ChainRunRecord>;
  private readonly cronFires: Ring<CronFireRecord>;

  constructor(keep = 50) {
    this.finished = new Ring(keep);
    this.chainRuns = new Ring(keep);
    this.cronFires = new Ring(keep);
  }

  started(record: TurnRecord): void {
    this.inFlight.set(record.id, record);
  }

  ended(record: TurnRecord): void {
    this.inFlight.delete(record.id);
    this.finished.add(record);
  }

  addStep(record: TurnRecord, step: TraceStep): void {
    if (record.steps.length >= MAX_STEPS) {
      record.droppedSteps += 1;
      return;
    }
    if (step.kind === 'tool') step.args = cut(step.args);
    record.steps.push(step);
  }

  toolResult(record: TurnRecord, toolCallId: string, result: string, now: number): void {
    for (let index = record.steps.length - 1; index >= 0; index--) {
      const step = record.steps[index];
      if (step?.kind === 'tool' && step.toolCallId === toolCallId) {
        step.result = cut(result);
        step.durationMs = now - record.startedAt - step.at;
        return;
      }
    }
  }

  chainRun(record: ChainRunRecord): void {
    this.chainRuns.add(record);
  }

  cronFire(record: CronFireRecord): void {
    this.cronFires.add(record);
  }

  cronEnded(taskId: string, turnId: string, outcome: 'success' | 'failure', durationMs: number): void {
    const fire = this.cronFires.find((record) => record.turnId === turnId && record.taskId === taskId);
    if (!fire) return;
    fire.outcome = outcome;
    fire.durationMs = durationMs;
  }

  /** A turn by id, running or among the last finished. */
  turn(id: string): TurnRecord | undefined {
    return this.inFlight.get(id) ?? this.finished.find((record) => record.id === id);
  }

  snapshot(owner: string | undefined): {
    inFlight: TurnRecord[];
    finished: TurnRecord[];
    chainRuns: ChainRunRecord[];
    cronFires: CronFireRecord[];
  } {
    const visible = (record: TurnRecord): boolean => owner === undefined || record.owner === owner;
    const summary = ({ steps: _steps, ...rest }: TurnRecord) => ({ ...rest, steps: [] });
    return {
      inFlight: [...this.inFlight.values()].filter(visible).map(summary),
      finished: this.finished.list().filter(visible).map(summary),
      chainRuns: owner === undefined ? this.chainRuns.list() : [],
      cronFires: owner === undefined ? this.cronFires.list() : [],
    };
  }
}
