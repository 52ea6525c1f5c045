// An agent or rule chain as the API answers it: the stored definition (secrets redacted) and whether
// it is loaded. Node-free: the web UI's typecheck reads these types.
export interface ChainStatus {
  loaded: boolean;
  error?: string;
  /** What is wrong with the loaded chain now (an MCP server that could not start). */
  problems?: string[];
  agentId?: string;
}

export interface ChainView {
  ruleChain: Record<string, unknown>;
  metadata: Record<string, unknown>;
  status: ChainStatus;
}
