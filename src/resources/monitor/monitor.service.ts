// The monitoring page's data: the in-memory monitor state of this instance, the channel accounts'
// connection states and the live subscribers, in one snapshot; and one turn's full trace.
import { notFound } from '../../core/errors.ts';
import type { Telemetry } from '../../observability/telemetry.ts';
import type { TurnRecord } from '../../observability/monitor-state.ts';

export interface ChannelState {
  platform: string;
  accountId: string;
  state: string;
  error?: string;
}

export class MonitorService {
  constructor(
    private readonly telemetry: Telemetry,
    private readonly channels: () => ChannelState[],
    private readonly instance: string,
  ) {}

  snapshot() {
    return {
      instance: this.instance,
      ...this.telemetry.monitor.snapshot(undefined),
      channels: this.channels(),
      subscribers: this.telemetry.hub.counts(),
    };
  }

  turn(turnId: string): TurnRecord {
    const record = this.telemetry.monitor.turn(turnId);
    if (!record) throw notFound(`turn "${turnId}" is not running nor among the last finished turns`);
    return { ...record, steps: [...record.steps] };
  }
}
