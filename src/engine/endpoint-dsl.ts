// RuleGo's endpoint DSL inside a chain (`metadata.endpoints`): each endpoint has a type (http, ws,
// schedule, mqtt; RuleGo's `endpoint/http` form too), its configuration and routers from a source
// (an HTTP path, a cron expression, an MQTT topic) to the chain. Checked when the chain loads.
import { z } from 'zod';

export const ENDPOINT_TYPES = ['http', 'ws', 'schedule', 'mqtt'] as const;
export type EndpointType = (typeof ENDPOINT_TYPES)[number];

const routerSchema = z.looseObject({
  id: z.string().optional(),
  /** http: the methods (RuleGo's params), default POST. */
  params: z.array(z.string()).optional(),
  from: z.looseObject({
    path: z.string().trim().min(1, 'must not be empty'),
    configuration: z.record(z.string(), z.unknown()).optional(),
  }),
  to: z
    .looseObject({
      /** The chain to run (its own id, or chainId of another chain); `chainId:nodeId` is refused. */
      path: z.string().optional(),
      /** http: answer with the run's result (true) or at once with 200 (false); ws: reply or not. */
      wait: z.boolean().optional(),
    })
    .optional(),
});

export const endpointSchema = z.looseObject({
  id: z.string().trim().min(1, 'must not be empty'),
  type: z
    .string()
    .transform((type) => type.replace(/^endpoint\//, ''))
    .pipe(z.enum(ENDPOINT_TYPES, { error: 'must be http, ws, schedule or mqtt (or endpoint/<type>)' })),
  name: z.string().optional(),
  configuration: z.record(z.string(), z.unknown()).optional(),
  routers: z.array(routerSchema).default([]),
});

export type EndpointDefinition = z.infer<typeof endpointSchema>;
export type EndpointRouter = EndpointDefinition['routers'][number];
