// Shapes of the rules resource. Bodies and list filters are those of every chain (agents.schema.ts).
import { z } from 'zod';
import { idParam } from '../../http/params.ts';
import { agentParams } from '../agents/agents.schema.ts';

export const ruleParams = z.object({ id: idParam });
export const agentRuleParams = agentParams.extend({ id: idParam });
/** Query parameters of an execute call: the message metadata. */
export const executeQuery = z.record(z.string(), z.string());
