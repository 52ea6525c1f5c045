// RuleGo's component list for its visual editor (GET /api/v1/components): one ComponentForm per
// registered node type, derived from each type's zod configSchema so the form and the validation
// cannot drift apart. Field and type names are RuleGo's (api/types ComponentForm, utils/reflect).
import { z } from 'zod';
import type { ComponentDescription, ComponentField, ComponentList } from './component-types.ts';
import type { NodeRegistry } from './registry.ts';

export type { ComponentDescription, ComponentField, ComponentList } from './component-types.ts';

interface JsonSchemaProperty {
  type?: string | string[];
  default?: unknown;
  label?: unknown;
  title?: unknown;
  description?: unknown;
  enum?: unknown[];
  additionalProperties?: unknown;
  properties?: Record<string, JsonSchemaProperty>;
  required?: string[];
  items?: JsonSchemaProperty;
}

export function describeComponents(registry: NodeRegistry): ComponentDescription[] {
  return registry.list().map((definition) => ({
    type: definition.type,
    category: definition.category,
    order: 0,
    fields: describeFields(definition.configSchema),
    label: definition.label,
    desc: definition.description,
    icon: '',
    relationTypes: [...definition.relations],
    disabled: false,
    version: '',
    componentKind: 'nc',
  }));
}

export function componentList(registry: NodeRegistry, globals: string[] = []): ComponentList {
  return {
    endpoints: [],
    nodes: describeComponents(registry),
    tools: null,
    builtins: {
      endpoints: { inProcessors: [], outProcessors: [] },
      nodePool: {},
      globals: [...globals].sort(),
    },
  };
}

function describeFields(schema: z.ZodType): ComponentField[] {
  let json: JsonSchemaProperty;
  try {
    // Input view: a field with a default is not required from the user.
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaProperty;
  } catch {
    // A schema JSON Schema cannot express (a cycle, say) gives an empty form, not a broken list.
    return [];
  }
  return fieldsOf(json);
}

function fieldsOf(json: JsonSchemaProperty): ComponentField[] {
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const type = fieldType(property);
    const isRequired = required.has(name);
    return {
      name,
      type,
      defaultValue: property.default ?? null,
      label: textOf(property.label) ?? textOf(property.title) ?? name,
      desc: textOf(property.description) ?? '',
      validate: '',
      rules: isRequired ? [{ required: true, message: 'This field is required' }] : [],
      // A struct's fields, or the fields of each item of a list of objects (cacheSet items, say).
      fields:
        type === 'struct'
          ? fieldsOf(property)
          : type === 'array' && property.items?.properties
            ? fieldsOf(property.items)
            : [],
      component: property.enum
        ? { type: 'select', options: property.enum.map((value) => ({ label: String(value), value })) }
        : null,
      required: isRequired,
    };
  });
}

function fieldType(property: JsonSchemaProperty): string {
  const type = Array.isArray(property.type) ? property.type.find((item) => item !== 'null') : property.type;
  switch (type) {
    case 'integer':
      return 'int';
    case 'number':
      return 'float64';
    case 'boolean':
      return 'bool';
    case 'array':
      return 'array';
    case 'object':
      return property.properties === undefined ? 'map' : 'struct';
    case 'string':
    case undefined:
    default:
      return 'string';
  }
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
