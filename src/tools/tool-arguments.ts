import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { describeIssues } from './tool-config.ts';
import type { Tool, ToolContext } from './types.ts';

export interface ToolArguments<T> {
  /** JSON Schema offered to the model. */
  parameters: Record<string, unknown>;
  /** Validates model-produced arguments; throws AppError('invalid') naming the bad fields. */
  parse(args: Record<string, unknown>): T;
}

/** The argument naming one workspace file (read, write, edit). */
export const filePathArgument = z.string().min(1).describe('File path, relative to the workspace');

/** One zod schema gives a tool both its JSON Schema and its argument validation. */
export function toolArguments<Schema extends z.ZodObject>(
  toolName: string,
  schema: Schema,
): ToolArguments<z.output<Schema>> {
  // Built when first asked for (a turn offering the tool), not when the module loads: converting
  // every tool's schema at start-up cost a few percent of the start.
  let parameters: Record<string, unknown> | undefined;
  return {
    get parameters() {
      if (parameters === undefined) {
        const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<
          string,
          unknown
        >;
        parameters = rest;
      }
      return parameters;
    },
    parse(args) {
      // Models often send null for an optional argument; treat it as absent.
      const present = Object.fromEntries(Object.entries(args).filter(([, value]) => value !== null));
      const result = schema.safeParse(present);
      if (result.success) return result.data;
      throw new AppError('invalid', `invalid arguments for ${toolName}: ${describeIssues(result.error)}`);
    },
  };
}

/** A built-in tool: the model is offered `arguments`' JSON Schema, and `execute` gets them validated. */
export function builtinTool<T>(spec: {
  name: string;
  description: string;
  arguments: ToolArguments<T>;
  execute(args: T, context: ToolContext): Promise<string>;
}): Tool {
  return {
    name: spec.name,
    description: spec.description,
    // Read when a turn offers the tool (toolArguments builds it then), not when the tool is made.
    get parameters() {
      return spec.arguments.parameters;
    },
    toolType: 'builtin',
    async execute(args, context) {
      return spec.execute(spec.arguments.parse(args), context);
    },
  };
}
