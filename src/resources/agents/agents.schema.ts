// Shapes of the agents resource. An agent is a rule chain stored with category "agents", so the
// chain body and list filters here are also those of /rules.
import { z } from 'zod';
import { paginationQuery } from '../../http/pagination.ts';
import { idParam } from '../../http/params.ts';

export const chainBody = z
  // metadata may be left out: RuleGo loads such a chain as an empty one.
  .looseObject({ ruleChain: z.looseObject({}), metadata: z.looseObject({}).optional() })
  .meta({ description: 'A RuleGo rule chain: {ruleChain: {id, name, ...}, metadata: {nodes, connections}}' });

const booleanText = z.enum(['true', 'false']).transform((value) => value === 'true');

export const chainListQuery = paginationQuery.extend({
  agentId: idParam.optional(),
  category: z.string().max(200).optional(),
  loaded: booleanText.optional(),
});

/** The agent named in a path: /agents/{agentId}/... (agents, rules, skills, workspace, cron). */
export const agentParams = z.object({ agentId: idParam });
