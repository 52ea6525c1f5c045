// The node types the server knows (GET /components, RuleGo's component list): the palette lists
// them, and each type's form is built from its field definitions.
import { useEffect, useState } from 'preact/hooks';
import { api } from '../../../api.ts';
import type {
  ComponentDescription,
  ComponentField as ServerField,
} from '@server/engine/component-types.ts';

/** A field of a node type's form; the editor reads a select's options from `component`. */
export interface ComponentField extends Omit<ServerField, 'component' | 'fields'> {
  component: { type?: string; options?: Array<{ label: string; value: unknown }> } | null;
  fields: ComponentField[];
}

export interface ComponentInfo extends Omit<ComponentDescription, 'fields'> {
  fields: ComponentField[];
}

let cached: Promise<ComponentInfo[]> | undefined;

/** The server's node types (fetched once per page load); null until they arrive. */
export function useComponents(): ComponentInfo[] | null {
  const [list, setList] = useState<ComponentInfo[] | null>(null);
  useEffect(() => {
    cached ??= api<{ nodes: ComponentInfo[] }>('/components').then(
      (answer) => answer.nodes.filter((node) => !node.disabled),
      (error: unknown) => {
        cached = undefined;
        throw error;
      },
    );
    cached.then(setList, () => setList([]));
  }, []);
  return list;
}

/** The configuration a new node starts with: every field's default. */
export function defaultConfiguration(info: ComponentInfo): Record<string, unknown> {
  const configuration: Record<string, unknown> = {};
  for (const field of info.fields)
    if (field.defaultValue !== null && field.defaultValue !== undefined)
      configuration[field.name] = structuredClone(field.defaultValue);
  return configuration;
}

/** The relations a node of this type sends messages on, RuleGo's defaults when it does not say. */
export function relationsOf(info: ComponentInfo | undefined): string[] {
  return info && info.relationTypes.length > 0 ? info.relationTypes : ['Success', 'Failure'];
}

// The same names as src/chains/chain-secrets.ts: their values are write-only (shown as ***).
const SECRET_NAME = /(^key$|password$|passwd$|secret$|token$|apikey$|privatekey$|credentials?$)/;
export const SECRET_MARK = '***';

export function isSecretField(name: string): boolean {
  return SECRET_NAME.test(name.toLowerCase().replace(/[-_]/g, ''));
}

/** Long text fields (scripts, templates, SQL) get a multi-line box. */
export function isLongText(field: ComponentField): boolean {
  return (
    /script|template|sql|body|prompt|content|expr|cmd|code/i.test(field.name) ||
    (typeof field.defaultValue === 'string' && field.defaultValue.includes('\n'))
  );
}
