// Cron tasks for the REST API, over the scheduler. With an agentId (the /agents/{agentId}/cron
// variants) the agent must exist and a task must target it.
import { invalid } from '../../core/errors.ts';
import type { CronScheduler, CronTaskView } from '../../scheduler/scheduler.ts';
import type { AgentCheck } from '../agents/agents.service.ts';
import type { AgentTaskBody, TaskBody } from './cron.schema.ts';

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
  runNow(id: string): Promise<CronTaskView> {
    return this.scheduler.runNow(id);
  }
}
