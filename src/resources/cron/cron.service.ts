// Cron tasks for the REST API, over the scheduler. With an agentId (the /agents/{agentId}/cron
// variants) the agent must exist and a task must target it.
import { Cron } from 'croner';
import { invalid } from '../../core/errors.ts';
import { validateCronExpression } from '../../scheduler/cron-expression.ts';
import type { CronRun } from '../../scheduler/cron-store.ts';
import type { CronScheduler, CronTaskView } from '../../scheduler/scheduler.ts';
import type { AgentCheck } from '../agents/agents.service.ts';
import type { AgentTaskBody, PreviewAnswer, TaskBody } from './cron.schema.ts';

/**
 * The next `count` fire times of a schedule, after `from`: checked by the scheduler's own validator
 * (a 400 naming the field) and computed by croner as the scheduler's jobs are, in the server's zone.
 */
export function previewSchedule(schedule: string, count: number, from = new Date()): PreviewAnswer {
  const normalized = validateCronExpression(schedule);
  const job = new Cron(normalized, { paused: true });
  try {
    return {
      schedule: normalized,
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      nextRuns: job.nextRuns(count, from).map((date) => date.toISOString()),
    };
  } finally {
    job.stop();
  }
}

export class CronService {
  constructor(
    private readonly scheduler: CronScheduler,
    private readonly agents: AgentCheck,
  ) {}

  /** Every task, or those targeting `agentId` (an unknown agent simply has none). */
  list(agentId?: string): Promise<CronTaskView[]> {
    return this.scheduler.list({ agentId });
  }

  /** The tasks of the agent in the path, which must exist. */
  async listFor(agentId: string): Promise<CronTaskView[]> {
    this.agents.requireAgent(agentId);
    return this.scheduler.list({ agentId });
  }

  get(id: string, agentId?: string): Promise<CronTaskView> {
    return this.scheduler.get(id, agentId);
  }

  create(body: TaskBody): Promise<CronTaskView> {
    return this.scheduler.create(body);
  }

  /** A task of the agent in the path: `target`, when given, must be that agent. */
  async createFor(agentId: string, body: AgentTaskBody): Promise<CronTaskView> {
    const { target = agentId, ...fields } = body;
    if (target !== agentId)
      throw invalid(`body.target: must be "${agentId}" (the agent in the path) or left out`);
    this.agents.requireAgent(agentId);
    return this.scheduler.create({ ...fields, target });
  }

  remove(id: string, agentId?: string): Promise<void> {
    return this.scheduler.remove(id, agentId);
  }

  toggle(id: string, disabled: boolean, agentId?: string): Promise<CronTaskView> {
    return this.scheduler.toggle(id, disabled, agentId);
  }

  /** Runs the task once now and returns it with the run recorded. */
  runNow(id: string, agentId?: string): Promise<CronTaskView> {
    return this.scheduler.runNow(id, agentId);
  }

  /** The task's recent runs, newest first. */
  runs(id: string, agentId?: string): Promise<CronRun[]> {
    return this.scheduler.runs(id, agentId);
  }

  preview(schedule: string, count: number): PreviewAnswer {
    return previewSchedule(schedule, count);
  }
}
