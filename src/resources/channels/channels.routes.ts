import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { idParam } from '../../http/params.ts';
import type { ChannelsService } from './channels.service.ts';
import { deleted } from '../../http/answers.ts';

const policy = z.enum(['allow', 'allowlist', 'disabled']);
const accountFields = {
  name: z.string().max(200).optional(),
  description: z.string().max(2000).optional(),
  enabled: z.boolean().optional(),
  dm_policy: policy.optional(),
  group_policy: policy.optional(),
  allow_from: z.array(z.string().max(200)).max(1000).optional(),
  app_id: z.string().max(500).optional(),
  app_secret: z.string().min(1).max(4096).optional(),
  api_base: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2000)
    .optional(),
  api_key: z.string().min(16, 'must be at least 16 characters').max(4096).optional(),
};
const createBody = z.strictObject({
  id: idParam,
  ...accountFields,
  binding: z.object({ agentId: idParam, match: z.record(z.string(), z.unknown()).optional() }).optional(),
});
const platformParams = z.object({ platform: z.string().max(64) });
const accountParams = platformParams.extend({ accountId: idParam });

export function registerChannelRoutes(app: FastifyInstance, channels: ChannelsService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['channels'];
  api.get('/api/v1/channels', { schema: { tags } }, async () => channels.all());
  api.get('/api/v1/channels/:platform', { schema: { tags, params: platformParams } }, async (request) =>
    channels.platform(request.params.platform),
  );
  api.get(
    '/api/v1/channels/:platform/accounts/:accountId',
    { schema: { tags, params: accountParams } },
    async (request) => channels.account(request.params.platform, request.params.accountId),
  );
  api.post(
    '/api/v1/channels/:platform/accounts',
    { schema: { tags, params: platformParams, body: createBody } },
    async (request, reply) => {
      const created = await channels.create(request.params.platform, request.body);
      reply.code(201);
      return created;
    },
  );
  api.put(
    '/api/v1/channels/:platform/accounts/:accountId',
    { schema: { tags, params: accountParams, body: z.strictObject(accountFields) } },
    async (request) => channels.update(request.params.platform, request.params.accountId, request.body),
  );
  api.delete(
    '/api/v1/channels/:platform/accounts/:accountId',
    { schema: { tags, params: accountParams } },
    async (request) => {
      await channels.remove(request.params.platform, request.params.accountId);
      return deleted(`account "${request.params.accountId}"`);
    },
  );
}
