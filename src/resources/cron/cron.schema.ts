// Shapes of the cron resource. The schedule's syntax is checked by the scheduler, whose messages
// name the bad field.
import { z } from 'zod';
import { idParam } from '../../http/params.ts';
import { agentParams } from '../agents/agents.schema.ts';

const taskFields = {
  id: idParam.optional(),
  name: z.string().trim().min(1).max(200),
  schedule: z.string().min(1).max(200).meta({ description: 'second minute hour day month weekday' }),
  message: z.string().min(1).max(100_000),
};
export const taskBody = z.object({ ...taskFields, target: idParam });
/** Under /agents/{agentId}/cron the target is the agent in the path, so it may be left out. */
export const agentTaskBody = z.object({ ...taskFields, target: idParam.optional() });
export const toggleBody = z.object({ disabled: z.boolean() });
export const taskParams = z.object({ id: idParam });
export const agentTaskParams = agentParams.extend({ id: idParam });
export const taskListQuery = z.object({ agentId: idParam.optional() });

export type TaskBody = z.infer<typeof taskBody>;
export type AgentTaskBody = z.infer<typeof agentTaskBody>;
