// A cron task and its runs as the API answers them. Node-free: the web UI's typecheck reads these.
export interface CronTaskFields {
  name: string;
  schedule: string;
  message: string;
  target: string;
}

export interface CronRun {
  /** The fire's scheduled time; absent for a run started by hand. */
  scheduledAt?: string;
  startedAt: string;
  endedAt: string;
  status: 'success' | 'failure';
  durationMs: number;
  error?: string;
  reply?: string;
}

export interface CronTaskView extends CronTaskFields {
  id: string;
  disabled: boolean;
  nextRunAt: string | null;
  createdAt: string;
  updatedAt: string;
  lastRun: CronRun | null;
}
