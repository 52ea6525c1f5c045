// Shapes of the rules resource. Bodies and list filters are those of every chain (agents.schema.ts).
import { z } from 'zod';
import { idParam } from '../../http/params.ts';
import { agentParams } from '../agents/agents.schema.ts';

export const ruleParams = z.object({ id: idParam });
export const agentRuleParams = agentParams.extend({ id: idParam });
/** Query parameters of an execute call: the message metadata. */
export const executeQuery = z.record(z.string(), z.string());
/** `execute/{msgType}`: the message type of the run, as RuleGo's REST endpoint takes it. */
export const executeTypeParams = ruleParams.extend({ msgType: z.string().min(1).max(200) });
