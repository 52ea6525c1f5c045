// DM pairing over REST (admins): GET /pairing, POST /pairing/{code}/approve, POST /pairing/{code}/reject.
import type { FastifyInstance } from 'fastify';
import { jsonRoutes } from '../../http/json-routes.ts';
import { pairingDecision, pairingList, pairingParams } from './pairing.schema.ts';
import type { PairingService } from './pairing.service.ts';

export function registerPairingRoutes(app: FastifyInstance, pairing: PairingService): void {
  const api = jsonRoutes(app, ['channels']);
  api.get('/pairing', { answer: pairingList }, async () => pairing.list());
  api.post('/pairing/:code/approve', { params: pairingParams, answer: pairingDecision }, async (request) =>
    pairing.approve(request.params.code),
  );
  api.post('/pairing/:code/reject', { params: pairingParams, answer: pairingDecision }, async (request) =>
    pairing.reject(request.params.code),
  );
}
