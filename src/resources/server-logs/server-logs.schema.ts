// Shapes of the server's own log lines (GET /logs/server), not the rule-chain run logs of /logs/runs.
import { z } from 'zod';
import { LEVELS } from '../../http/log-levels.ts';

const levels = Object.keys(LEVELS) as [keyof typeof LEVELS, ...(keyof typeof LEVELS)[]];

export const serverLogQuery = z.strictObject({
  /** Lines at this level or above (default: all kept). */
  level: z.enum(levels).optional(),
  /** The newest this many lines (default 200, at most the ring's size). */
  limit: z.coerce.number().int().min(1).max(10_000).default(200),
  /** Only lines after this sequence number (what a poller saw last). */
  after: z.coerce.number().int().min(0).optional(),
  /** true: answer text/event-stream, the recent lines and then each new one as it is written. */
  follow: z
    .enum(['true', 'false', '1', '0'])
    .transform((value) => value === 'true' || value === '1')
    .optional(),
});

export const logLineView = z.object({
  seq: z.number(),
  time: z.number(),
  level: z.enum(levels),
  msg: z.string(),
  fields: z.record(z.string(), z.unknown()),
});

export const serverLogAnswer = z.object({
  data: z.array(logLineView),
  /** How many lines the server keeps (older ones are dropped). */
  capacity: z.number(),
  /** Where the rotating log file is, when server.log_file is set. */
  file: z.string().nullable(),
});

export type LogLineView = z.infer<typeof logLineView>;
export type ServerLogAnswer = z.infer<typeof serverLogAnswer>;
