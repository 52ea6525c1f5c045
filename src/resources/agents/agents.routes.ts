import type { FastifyInstance } from 'fastify';
import { registerChainCrud } from '../rules/rules.routes.ts';
import type { ChainCatalog } from '../../chains/chain-catalog.ts';

/** Agents are rule chains stored with category "agents"; same operations, agent scope. */
export function registerAgentRoutes(app: FastifyInstance, chains: ChainCatalog): void {
  registerChainCrud(app, chains, '/api/v1/agents', () => ({ kind: 'agent' }), ['agents']);
}
