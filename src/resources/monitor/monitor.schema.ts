// Shapes of the monitoring page's API: a snapshot of the work running and done, and one turn's trace.
import { z } from 'zod';

const turnSummary = z.object({
  id: z.string(),
  agentId: z.string(),
  channel: z.string(),
  requester: z.string().optional(),
  owner: z.string().optional(),
  traceId: z.string().optional(),
  startedAt: z.int(),
  endedAt: z.int().optional(),
  durationMs: z.int().optional(),
  status: z.enum(['running', 'success', 'failure']),
  error: z.string().optional(),
  currentTool: z.string().optional(),
  inputTokens: z.int(),
  outputTokens: z.int(),
  parentTurnId: z.string().optional(),
  droppedSteps: z.int(),
});

const traceStep = z.record(z.string(), z.unknown()).meta({
  description:
    'kind model (provider, model, durationMs, firstTokenMs, tokens), tool (tool, args, result) or node (chainId, nodeId, relations).',
});

export const turnTrace = turnSummary.extend({ steps: z.array(traceStep) }).meta({ id: 'TurnTrace' });

export const monitorSnapshot = z
  .object({
    instance: z.string(),
    inFlight: z.array(turnSummary.extend({ steps: z.array(traceStep) })),
    finished: z.array(turnSummary.extend({ steps: z.array(traceStep) })),
    chainRuns: z.array(
      z.object({
        id: z.string(),
        chainId: z.string(),
        agentId: z.string().optional(),
        startedAt: z.int(),
        durationMs: z.int().optional(),
        outcome: z.enum(['success', 'failure']).optional(),
        error: z.string().optional(),
        nodes: z.int(),
      }),
    ),
    cronFires: z.array(
      z.object({
        taskId: z.string(),
        agentId: z.string(),
        turnId: z.string(),
        scheduledAt: z.int().optional(),
        startedAt: z.int(),
        latenessMs: z.int().optional(),
        durationMs: z.int().optional(),
        outcome: z.enum(['success', 'failure']).optional(),
      }),
    ),
    channels: z.array(
      z.object({
        platform: z.string(),
        accountId: z.string(),
        state: z.string(),
        error: z.string().optional(),
      }),
    ),
    subscribers: z.record(z.string(), z.int()),
  })
  .meta({ id: 'MonitorSnapshot' });

export const turnParams = z.object({ turnId: z.string().max(80) });

export type MonitorSnapshot = z.infer<typeof monitorSnapshot>;
export type TurnSummary = z.infer<typeof turnSummary>;
