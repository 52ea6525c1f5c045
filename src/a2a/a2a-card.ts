// Agent cards (A2A v1.0, in the protocol's JSON form): one per agent, served at
// /api/v1/a2a/{agentId}/.well-known/agent-card.json, and the server's at /.well-known/agent-card.json
// listing every agent the caller may use as a skill. Each card names the agent's JSON-RPC endpoint
// for v1.0 and for v0.3 clients, and declares the Bearer scheme of the REST API.
import type { ChainView } from '../chains/chain-catalog.ts';

export const A2A_PATH = '/api/v1/a2a';

export interface CardAgent {
  id: string;
  name: string;
  description: string;
}

export function cardAgent(view: ChainView): CardAgent {
  const id = String(view.ruleChain['id']);
  const name =
    typeof view.ruleChain['name'] === 'string' && view.ruleChain['name'] ? view.ruleChain['name'] : id;
  const info = view.ruleChain['additionalInfo'] as { description?: unknown } | undefined;
  const description =
    typeof info?.description === 'string' && info.description ? info.description : `The agent "${name}".`;
  return { id, name, description };
}

export interface CardOptions {
  /** Origin the caller reached us at, e.g. http://127.0.0.1:9527. */
  origin: string;
  version: string;
  requireAuth: boolean;
}

export function endpointOf(origin: string, agentId: string): string {
  return `${origin}${A2A_PATH}/${encodeURIComponent(agentId)}`;
}

function securityFields(requireAuth: boolean): Record<string, unknown> {
  return {
    securitySchemes: {
      bearer: {
        httpAuthSecurityScheme: {
          scheme: 'Bearer',
          description:
            'A user login token (JWT), a user API key, or an api-channel account key, as for the REST API.',
        },
      },
    },
    securityRequirements: requireAuth ? [{ schemes: { bearer: {} } }] : [],
  };
}

/** An agent endpoint's interfaces: JSON-RPC, in A2A 1.0 and 0.3. */
function interfacesOf(url: string): Array<Record<string, string>> {
  return [
    { url, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
    { url, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
  ];
}

/** What every card says of this server: provider, version, capabilities, security and modes. */
function serverFields(options: CardOptions): Record<string, unknown> {
  return {
    provider: { organization: 'Agent Service', url: options.origin },
    version: options.version,
    capabilities: { streaming: true, pushNotifications: false },
    ...securityFields(options.requireAuth),
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
  };
}

function skill(agent: CardAgent): Record<string, unknown> {
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    tags: ['agent'],
    inputModes: ['text/plain'],
    outputModes: ['text/plain'],
  };
}

/** The card of one agent. The v0.3 top-level fields (url, preferredTransport) serve older clients. */
export function agentCard(agent: CardAgent, options: CardOptions): Record<string, unknown> {
  const url = endpointOf(options.origin, agent.id);
  return {
    name: agent.name,
    description: agent.description,
    supportedInterfaces: interfacesOf(url),
    ...serverFields(options),
    skills: [skill(agent)],
    url,
    preferredTransport: 'JSONRPC',
  };
}

/**
 * The server's card: the default agent's endpoint (or the first agent's), with every agent the
 * caller may use as a skill whose id is the agent id (its own card is under A2A_PATH/{id}).
 */
export function serverCard(
  agents: CardAgent[],
  primary: CardAgent | undefined,
  options: CardOptions,
): Record<string, unknown> {
  const card: Record<string, unknown> = {
    name: 'Agent Service',
    description: `Agents of this server; each one's card is at ${options.origin}${A2A_PATH}/{agentId}/.well-known/agent-card.json.`,
    supportedInterfaces: primary ? interfacesOf(endpointOf(options.origin, primary.id)) : [],
    ...serverFields(options),
    skills: agents.map(skill),
  };
  if (primary) {
    card['url'] = endpointOf(options.origin, primary.id);
    card['preferredTransport'] = 'JSONRPC';
  }
  return card;
}
