// RuleGo's component list for a visual editor: one form description per registered node type,
// derived from each type's zod configSchema so the form and the validation cannot drift apart.
import { z } from 'zod';
import type { NodeRegistry } from './registry.ts';

export interface ComponentField {
  name: string;
  /** string, number, integer, boolean, array, object or map (an object of free keys). */
  type: string;
  defaultValue: unknown;
  required: boolean;
  label: string;
  desc: string;
  /** The allowed values of an enum field. */
  options?: unknown[];
}

export interface ComponentDescription {
  type: string;
  category: string;
  label: string;
  desc: string;
  relationTypes: string[];
  fields: ComponentField[];
}

interface JsonSchemaProperty {
  type?: string | string[];
  default?: unknown;
  label?: unknown;
  title?: unknown;
  description?: unknown;
  enum?: unknown[];
  additionalProperties?: unknown;
  properties?: unknown;
}

export function describeComponents(registry: NodeRegistry): ComponentDescription[] {
  return registry.list().map((definition) => ({
    type: definition.type,
    category: definition.category,
    label: definition.label,
    desc: definition.description,
    relationTypes: [...definition.relations],
    fields: describeFields(definition.configSchema),
  }));
}

function describeFields(schema: z.ZodType): ComponentField[] {
  let json: { properties?: Record<string, JsonSchemaProperty>; required?: string[] };
  try {
    // Input view: a field with a default is not required from the user.
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as typeof json;
  } catch {
    // A schema JSON Schema cannot express (a cycle, say) gives an empty form, not a broken list.
    return [];
  }
  const required = new Set(json.required ?? []);
  return Object.entries(json.properties ?? {}).map(([name, property]) => {
    const field: ComponentField = {
      name,
      type: fieldType(property),
      defaultValue: property.default,
      required: required.has(name),
      label: textOf(property.label) ?? textOf(property.title) ?? name,
      desc: textOf(property.description) ?? '',
    };
    if (property.enum) field.options = [...property.enum];
    return field;
  });
}

function fieldType(property: JsonSchemaProperty): string {
  const type = Array.isArray(property.type) ? property.type.find((item) => item !== 'null') : property.type;
  if (type === 'object' && property.properties === undefined && property.additionalProperties !== undefined) {
    return 'map';
  }
  return type ?? 'string';
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
