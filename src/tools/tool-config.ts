import { z } from 'zod';
import { AppError } from '../core/errors.ts';

/** Validates a tool's configuration (from an agent definition) and fills in its defaults. */
export function parseToolConfig<Schema extends z.ZodObject>(
  toolName: string,
  schema: Schema,
  config: unknown,
): z.output<Schema> {
  const result = schema.safeParse(config ?? {});
  if (result.success) return result.data;
  throw new AppError('invalid', `invalid config for tool ${toolName}: ${describeIssues(result.error)}`);
}

/** One line naming each bad field, e.g. "path: Invalid input: expected string, received number". */
export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.join('.');
      return field ? `${field}: ${issue.message}` : issue.message;
    })
    .join('; ');
}

/** A whole-number limit of a tool's configuration, at least `min`. */
export function limitField(min: number, defaultValue: number, title: string, description: string) {
  return z.number().int().min(min).default(defaultValue).meta({ title, description });
}
