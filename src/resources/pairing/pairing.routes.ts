// DM pairing over REST (admins): GET /pairing, POST /pairing/{code}/approve, POST /pairing/{code}/reject.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { pairingDecision, pairingList, pairingParams } from './pairing.schema.ts';
import type { PairingService } from './pairing.service.ts';

export function registerPairingRoutes(app: FastifyInstance, pairing: PairingService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['channels'];

  api.get('/pairing', { schema: { tags, response: { 200: pairingList } } }, async () => pairing.list());
  api.post(
    '/pairing/:code/approve',
    { schema: { tags, params: pairingParams, response: { 200: pairingDecision } } },
    async (request) => pairing.approve(request.params.code),
  );
  api.post(
    '/pairing/:code/reject',
    { schema: { tags, params: pairingParams, response: { 200: pairingDecision } } },
    async (request) => pairing.reject(request.params.code),
  );
}
