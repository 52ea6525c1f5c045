// The answers of operations that return no resource: {success, message}, one shape everywhere.
import { z } from 'zod';

export const successAnswer = z.object({ success: z.literal(true), message: z.string() });
export type SuccessAnswer = z.infer<typeof successAnswer>;

export function succeeded(message: string): SuccessAnswer {
  return { success: true, message };
}

/** `what` names the thing with its kind: `skill "x"`, `cron task "y"`. */
export function deleted(what: string): SuccessAnswer {
  return succeeded(`${what} deleted`);
}
