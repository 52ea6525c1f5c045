// Users over REST (admins only: a member gets 403 from the auth hook): GET/POST /users,
// GET/PUT/DELETE /users/{name}; GET /auth/me (anyone signed in); GET/PUT /security (requireAuth).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { registerCrudRoutes } from '../../http/crud-routes.ts';
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

  registerCrudRoutes(app, {
    tags,
    path: '/users',
    item: '/:name',
    params: userParams,
    body: createUserBody,
    replaceBody: updateUserBody,
    listView: userList,
    view: userView,
    named: ({ name }) => `user "${name}"`,
    list: () => users.list(),
    create: (body) => users.create(body),
    get: ({ name }) => users.get(name),
    replace: ({ name }, body) => users.update(name, body),
    remove: ({ name }) => users.remove(name),
  });
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
