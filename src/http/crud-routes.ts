// The routes of a resource kept by id: list, create (201), read, replace, delete ({success, message})
// and, for rule chains, reload. Agents, rules (every chain, and one agent's), budgets and users all
// have this shape; each declares its schemas and service calls once here instead of five routes.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import { deleted, successAnswer } from './answers.ts';

type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface CrudRoutes<
  P extends z.ZodType,
  B extends z.ZodType,
  R extends z.ZodType,
  C extends z.ZodType | undefined,
  Q extends z.ZodType | undefined,
> {
  tags: string[];
  /** The collection: '/users', '/agents/:agentId/rules'. */
  path: string;
  /** An item, under the collection: '/:name'. */
  item: string;
  /** The parameters of an item's path (with the collection's). */
  params: P;
  /** The parameters of the collection's path, where it has any. */
  collectionParams?: C;
  listQuery?: Q;
  body: B;
  /** The body of a replace, when it is not that of a create. */
  replaceBody?: R;
  /** The answer schema of the list, and of one item (create, read, replace). */
  listView?: z.ZodType;
  view?: z.ZodType;
  createDescription?: string;
  /** How the delete answer names the item: `user "x"`. */
  named: (params: z.output<P>) => string;
  list: (query: Out<Q>, params: Out<C>, request: FastifyRequest) => unknown;
  create: (body: z.output<B>, params: Out<C>) => unknown;
  get: (params: z.output<P>) => unknown;
  replace: (params: z.output<P>, body: z.output<R>) => unknown;
  remove: (params: z.output<P>) => Promise<unknown>;
  reload?: (params: z.output<P>) => unknown;
}

/** A route schema without the parts left unset (fastify's schema walk expects them absent). */
function schema(parts: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(parts).filter(([, value]) => value !== undefined));
}

export function registerCrudRoutes<
  P extends z.ZodType,
  B extends z.ZodType,
  R extends z.ZodType = B,
  C extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
>(app: FastifyInstance, spec: CrudRoutes<P, B, R, C, Q>): void {
  const { tags, path, view } = spec;
  const itemPath = `${spec.path}${spec.item}`;
  // The zod validator has parsed params, query and body into their schemas' output by now.
  const params = (request: FastifyRequest): z.output<P> => request.params as z.output<P>;
  const collection = (request: FastifyRequest): Out<C> => request.params as Out<C>;
  app.get(path, {
    schema: schema({
      tags,
      params: spec.collectionParams,
      querystring: spec.listQuery,
      response: spec.listView && { 200: spec.listView },
    }),
    handler: async (request) => spec.list(request.query as Out<Q>, collection(request), request),
  });
  app.post(path, {
    schema: schema({
      tags,
      description: spec.createDescription,
      params: spec.collectionParams,
      body: spec.body,
      response: view && { 201: view },
    }),
    handler: async (request, reply) => {
      reply.code(201);
      return spec.create(request.body as z.output<B>, collection(request));
    },
  });
  app.get(itemPath, {
    schema: schema({ tags, params: spec.params, response: view && { 200: view } }),
    handler: async (request) => spec.get(params(request)),
  });
  app.put(itemPath, {
    schema: schema({
      tags,
      params: spec.params,
      body: spec.replaceBody ?? spec.body,
      response: view && { 200: view },
    }),
    handler: async (request) => spec.replace(params(request), request.body as z.output<R>),
  });
  app.delete(itemPath, {
    schema: { tags, params: spec.params, response: { 200: successAnswer } },
    handler: async (request) => {
      await spec.remove(params(request));
      return deleted(spec.named(params(request)));
    },
  });
  const { reload } = spec;
  if (reload)
    app.post(`${itemPath}/reload`, {
      schema: { tags, params: spec.params },
      handler: async (request) => reload(params(request)),
    });
}
