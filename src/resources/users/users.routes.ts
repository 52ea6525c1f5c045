// Users over REST (admins only: a member gets 403 from the auth hook): GET/POST /users,
// GET/PUT/DELETE /users/{name}; GET /auth/me (anyone signed in); GET/PUT /security (requireAuth).
import type { FastifyInstance } from 'fastify';
import { jsonRoutes } from '../../http/json-routes.ts';
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
  const tags = ['users'];
  const api = jsonRoutes(app, tags);

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
  api.get('/auth/me', { answer: meView }, async (request) => users.me(request.principal));
  api.get('/security', { answer: securityView }, async () => users.security());
  api.put('/security', { body: securityBody, answer: securityView }, async (request) =>
    users.setRequireAuth(request.body.requireAuth),
  );
}
