import { z } from 'zod';
import { AppError } from '../core/errors.ts';
import type { Tool } from './types.ts';
import { bashConfigSchema, createBashTool } from './bash.ts';
import { createEditTool } from './edit.ts';
import { createGlobTool, globConfigSchema } from './glob.ts';
import { createGrepTool, grepConfigSchema } from './grep.ts';
import { createReadTool, readConfigSchema } from './read.ts';
import { createSkillTool } from './skill.ts';
import {
  createMemoryGetTool,
  createMemorySearchTool,
  createMemoryWriteTool,
  createSessionSearchTool,
} from './memory-tools.ts';
import { createWebFetchTool, webFetchConfigSchema } from './web-fetch.ts';
import { createWriteTool, writeConfigSchema } from './write.ts';

export const BUILTIN_TOOL_NAMES = [
  'read',
  'write',
  'edit',
  'grep',
  'glob',
  'bash',
  'web_fetch',
  'skill',
  'memory_search',
  'memory_get',
  'memory_write',
  'session_search',
] as const;

export type BuiltinToolName = (typeof BUILTIN_TOOL_NAMES)[number];

export interface ToolFormField {
  name: string;
  type: 'boolean' | 'number' | 'string' | 'string[]';
  default?: unknown;
  label: string;
  description: string;
}

/** How the web UI renders the configuration of one built-in tool. */
export interface ToolForm {
  name: BuiltinToolName;
  description: string;
  fields: ToolFormField[];
}

interface BuiltinDefinition {
  configSchema: z.ZodObject;
  create(config: Record<string, unknown>): Tool;
}

// The factories validate their own config; the schemas here only feed the forms.
const EMPTY_CONFIG = z.object({});

const DEFINITIONS: Record<BuiltinToolName, BuiltinDefinition> = {
  read: { configSchema: readConfigSchema, create: createReadTool },
  write: { configSchema: writeConfigSchema, create: createWriteTool },
  edit: { configSchema: EMPTY_CONFIG, create: createEditTool },
  grep: { configSchema: grepConfigSchema, create: createGrepTool },
  glob: { configSchema: globConfigSchema, create: createGlobTool },
  bash: { configSchema: bashConfigSchema, create: createBashTool },
  web_fetch: { configSchema: webFetchConfigSchema, create: createWebFetchTool },
  skill: { configSchema: EMPTY_CONFIG, create: createSkillTool },
  memory_search: { configSchema: EMPTY_CONFIG, create: createMemorySearchTool },
  memory_get: { configSchema: EMPTY_CONFIG, create: createMemoryGetTool },
  memory_write: { configSchema: EMPTY_CONFIG, create: createMemoryWriteTool },
  session_search: { configSchema: EMPTY_CONFIG, create: createSessionSearchTool },
};

export function isBuiltinToolName(name: string): name is BuiltinToolName {
  return (BUILTIN_TOOL_NAMES as readonly string[]).includes(name);
}

/** A built-in tool by name, configured from an agent's tool entry; AppError('invalid') otherwise. */
export function createBuiltinTool(name: string, config: Record<string, unknown> = {}): Tool {
  if (!isBuiltinToolName(name)) {
    throw new AppError('invalid', `unknown built-in tool "${name}"; known: ${BUILTIN_TOOL_NAMES.join(', ')}`);
  }
  return DEFINITIONS[name].create(config);
}

/** The configuration form of every built-in tool, derived from the same schemas that validate it. */
export function builtinToolForms(): ToolForm[] {
  return BUILTIN_TOOL_NAMES.map((name) => {
    const { configSchema, create } = DEFINITIONS[name];
    const schema = z.toJSONSchema(configSchema, { io: 'input' }) as {
      properties?: Record<string, { type?: string; default?: unknown; title?: string; description?: string }>;
    };
    const fields = Object.entries(schema.properties ?? {}).map(([field, property]): ToolFormField => {
      const type =
        property.type === 'array' ? 'string[]' : property.type === 'integer' ? 'number' : property.type;
      return {
        name: field,
        type: type === 'boolean' || type === 'number' || type === 'string[]' ? type : 'string',
        ...(property.default === undefined ? {} : { default: property.default }),
        label: property.title ?? field,
        description: property.description ?? '',
      };
    });
    return { name, description: create({}).description, fields };
  });
}
