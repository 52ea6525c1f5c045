import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import { describeIssues, parseToolConfig } from './tool-config.ts';
import type { Tool, ToolContext } from './types.ts';

export interface ToolArguments<T> {
  /** JSON Schema offered to the model. */
  parameters: Record<string, unknown>;
  /** Validates model-produced arguments; throws AppError('invalid') naming the bad fields. */
  parse(args: Record<string, unknown>): T;
}

/** The argument naming one workspace file (read, write, edit). */
export const filePathArgument = z.string().min(1).describe('File path, relative to the workspace');

// Each schema's JSON Schema, built when first asked for (a turn offering the tool), not when the
// module loads: converting every tool's schema at start-up cost a few percent of the start. Kept per
// schema, so the tools made from one schema build it once.
const jsonSchemas = new WeakMap<z.ZodObject, Record<string, unknown>>();

function parametersOf(schema: z.ZodObject): Record<string, unknown> {
  let parameters = jsonSchemas.get(schema);
  if (parameters === undefined) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
    parameters = rest;
    jsonSchemas.set(schema, parameters);
  }
  return parameters;
}

/** One zod schema gives a tool both its JSON Schema and its argument validation. */
export function toolArguments<Schema extends z.ZodObject>(
  toolName: string,
  schema: Schema,
): ToolArguments<z.output<Schema>> {
  return {
    get parameters() {
      return parametersOf(schema);
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

/** A built-in tool with a configuration, as `configuredTool` makes it. */
export interface ConfiguredToolSpec<Arguments extends z.ZodObject, Config extends z.ZodObject> {
  name: string;
  /** A text, or one made from the checked configuration (a limit it names, say). */
  description: string | ((settings: z.output<Config>) => string);
  arguments: Arguments;
  configSchema: Config;
  execute(args: z.output<Arguments>, context: ToolContext, settings: z.output<Config>): Promise<string>;
}

/**
 * The tool `spec` describes with `config`, checked against its schema (defaults filled in) here, when
 * the tool is made; `execute` gets the result. The name, given once, also names the tool in the
 * errors of both checks.
 */
export function configuredTool<Arguments extends z.ZodObject, Config extends z.ZodObject>(
  spec: ConfiguredToolSpec<Arguments, Config>,
  config: unknown,
): Tool {
  const settings = parseToolConfig(spec.name, spec.configSchema, config);
  return builtinTool({
    name: spec.name,
    description: typeof spec.description === 'string' ? spec.description : spec.description(settings),
    arguments: toolArguments(spec.name, spec.arguments),
    execute: (args, context) => spec.execute(args, context, settings),
  });
}

/** The factory of a configured tool: given a configuration (default none), the tool. */
export function toolFactory<Arguments extends z.ZodObject, Config extends z.ZodObject>(
  spec: ConfiguredToolSpec<Arguments, Config>,
): (config?: z.input<Config>) => Tool {
  return (config) => configuredTool(spec, config);
}
