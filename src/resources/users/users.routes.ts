// Users over REST (admins only: a member gets 403 from the auth hook): GET/POST /users,
// GET/PUT/DELETE /users/{name}; GET /auth/me (anyone signed in); GET/PUT /security (requireAuth).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { deleted, successAnswer } from '../../http/answers.ts';
import {
  createUserBody,
  meView,
  securityBody,
  securityView,
  updateUserBody,
  userList,
  userParams,
  userView,
} from './users.schema.ts';
import type { UsersService } from './users.service.ts';

export function registerUserRoutes(app: FastifyInstance, users: UsersService): void {
  const api = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['users'];

  api.get('/users', { schema: { tags, response: { 200: userList } } }, async () => users.list());
  api.post(
    '/users',
    { schema: { tags, body: createUserBody, response: { 201: userView } } },
    async (request, reply) => {
      reply.code(201);
      return users.create(request.body);
    },
  );
  api.get(
    '/users/:name',
    { schema: { tags, params: userParams, response: { 200: userView } } },
    async (request) => users.get(request.params.name),
  );
  api.put(
    '/users/:name',
    { schema: { tags, params: userParams, body: updateUserBody, response: { 200: userView } } },
    async (request) => users.update(request.params.name, request.body),
  );
  api.delete(
    '/users/:name',
    { schema: { tags, params: userParams, response: { 200: successAnswer } } },
    async (request) => {
      await users.remove(request.params.name);
      return deleted(`user "${request.params.name}"`);
    },
  );
  api.get('/auth/me', { schema: { tags, response: { 200: meView } } }, async (request) =>
    users.me(request.principal),
  );
  api.get('/security', { schema: { tags, response: { 200: securityView } } }, async () => users.security());
  api.put(
    '/security',
    { schema: { tags, body: securityBody, response: { 200: securityView } } },
    async (request) => users.setRequireAuth(request.body.requireAuth),
  );
}
