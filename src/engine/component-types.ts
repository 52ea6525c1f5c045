// The shapes of GET /api/v1/components (RuleGo's ComponentForm). Node-free: the web UI's typecheck
// reads them.
export interface ComponentField {
  name: string;
  /** RuleGo's names: string, int, float64, bool, array, map or struct. */
  type: string;
  defaultValue: unknown;
  label: string;
  desc: string;
  validate: string;
  rules: Array<Record<string, unknown>>;
  fields: ComponentField[];
  /** The editor's widget: a `select` with its options for an enum field. */
  component: Record<string, unknown> | null;
  required: boolean;
}

export interface ComponentDescription {
  type: string;
  category: string;
  order: number;
  fields: ComponentField[];
  label: string;
  desc: string;
  icon: string;
  relationTypes: string[];
  disabled: boolean;
  version: string;
  /** `nc`: a native component (RuleGo's ComponentKindNative). */
  componentKind: string;
}

/** What RuleGo's server answers on GET /components: endpoint forms, node forms and built-in lists. */
export interface ComponentList {
  endpoints: ComponentDescription[];
  nodes: ComponentDescription[];
  tools: null;
  builtins: {
    endpoints: { inProcessors: string[]; outProcessors: string[] };
    nodePool: Record<string, unknown>;
    /** Names of the global properties (never their values), for `${global.x}` completion. */
    globals: string[];
  };
}
