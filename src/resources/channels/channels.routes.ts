// Channel platforms and their accounts over REST: /channels, /channels/{platform} and its accounts.
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deleted, successAnswer } from '../../http/answers.ts';
import {
  accountBody,
  accountParams,
  accountPatch,
  accountView,
  channelsView,
  createdAccountView,
  platformParams,
  platformView,
  platformsView,
} from './channels.schema.ts';
import type { ChannelsService } from './channels.service.ts';

export function registerChannelRoutes(app: FastifyInstance, channels: ChannelsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['channels'];
  api.get('/channels', { schema: { tags, response: { 200: channelsView } } }, async () => channels.all());
  // The account form of each platform (static, so it is matched before /channels/:platform).
  api.get('/channels/platforms', { schema: { tags, response: { 200: platformsView } } }, async () =>
    channels.platforms(),
  );
  api.get(
    '/channels/:platform',
    { schema: { tags, params: platformParams, response: { 200: platformView } } },
    async (request) => channels.platform(request.params.platform),
  );
  api.get(
    '/channels/:platform/accounts/:accountId',
    { schema: { tags, params: accountParams, response: { 200: accountView } } },
    async (request) => channels.account(request.params.platform, request.params.accountId),
  );
  api.post(
    '/channels/:platform/accounts',
    { schema: { tags, params: platformParams, body: accountBody, response: { 201: createdAccountView } } },
    async (request, reply) => {
      const created = await channels.create(request.params.platform, request.body);
      reply.code(201);
      return created;
    },
  );
  api.put(
    '/channels/:platform/accounts/:accountId',
    { schema: { tags, params: accountParams, body: accountPatch, response: { 200: accountView } } },
    async (request) => channels.update(request.params.platform, request.params.accountId, request.body),
  );
  api.delete(
    '/channels/:platform/accounts/:accountId',
    { schema: { tags, params: accountParams, response: { 200: successAnswer } } },
    async (request) => {
      await channels.remove(request.params.platform, request.params.accountId);
      return deleted(`account "${request.params.accountId}"`);
    },
  );
}
