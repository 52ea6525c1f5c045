// Shapes of the cron resource. The schedule's syntax is checked by the scheduler, whose messages
// name the bad field.
import { z } from 'zod';
import { idParam } from '../../http/params.ts';
import { agentParams } from '../agents/agents.schema.ts';

const taskFields = {
  /** `preview` is a route (`GET /cron/preview`), so it cannot name a task. */
  id: idParam.refine((id) => id !== 'preview', 'the id "preview" is reserved').optional(),
  name: z.string().trim().min(1).max(200),
  schedule: z.string().min(1).max(200).meta({ description: 'second minute hour day month weekday' }),
  message: z.string().min(1).max(100_000),
  /** Created disabled: stored and shown, never fired until it is enabled (default false). */
  disabled: z.boolean().optional(),
};
export const taskBody = z.object({ ...taskFields, target: idParam });
/** Under /agents/{agentId}/cron the target is the agent in the path, so it may be left out. */
export const agentTaskBody = z.object({ ...taskFields, target: idParam.optional() });
export const toggleBody = z.object({ disabled: z.boolean() });
export const taskParams = z.object({ id: idParam });
export const agentTaskParams = agentParams.extend({ id: idParam });
export const taskListQuery = z.object({ agentId: idParam.optional() });
/** GET /cron/preview: the next `count` fire times of a schedule, computed as the scheduler does. */
export const previewQuery = z.object({
  schedule: z.string().min(1).max(200).meta({ description: 'second minute hour day month weekday' }),
  count: z.coerce.number().int().min(1).max(50).default(5),
});
export const previewAnswer = z.object({
  schedule: z.string(),
  /** The server's time zone, in which the schedule fires. */
  timeZone: z.string(),
  nextRuns: z.array(z.string()),
});
export const runView = z.object({
  /** The fire's scheduled time; absent for a run started by hand. */
  scheduledAt: z.string().optional(),
  startedAt: z.string(),
  endedAt: z.string(),
  status: z.enum(['success', 'failure']),
  durationMs: z.number(),
  error: z.string().optional(),
  reply: z.string().optional(),
});
export const runsAnswer = z.object({ data: z.array(runView) });

export type TaskBody = z.infer<typeof taskBody>;
export type AgentTaskBody = z.infer<typeof agentTaskBody>;
export type PreviewAnswer = z.infer<typeof previewAnswer>;
