// Channel platforms and their accounts over REST: /channels, /channels/{platform} and its accounts.
import type { FastifyInstance } from 'fastify';
import { jsonRoutes } from '../../http/json-routes.ts';
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
  const api = jsonRoutes(app, ['channels']);
  api.get('/channels', { answer: channelsView }, async () => channels.all());
  // The account form of each platform (static, so it is matched before /channels/:platform).
  api.get('/channels/platforms', { answer: platformsView }, async () => channels.platforms());
  api.get('/channels/:platform', { params: platformParams, answer: platformView }, async (request) =>
    channels.platform(request.params.platform),
  );
  api.get(
    '/channels/:platform/accounts/:accountId',
    { params: accountParams, answer: accountView },
    async (request) => channels.account(request.params.platform, request.params.accountId),
  );
  api.post(
    '/channels/:platform/accounts',
    { params: platformParams, body: accountBody, created: createdAccountView },
    async (request) => channels.create(request.params.platform, request.body),
  );
  api.put(
    '/channels/:platform/accounts/:accountId',
    { params: accountParams, body: accountPatch, answer: accountView },
    async (request) => channels.update(request.params.platform, request.params.accountId, request.body),
  );
  api.removal(
    '/channels/:platform/accounts/:accountId',
    accountParams,
    ({ platform, accountId }) => channels.remove(platform, accountId),
    ({ accountId }) => `account "${accountId}"`,
  );
}
