// The shape most REST routes share, declared once: the resource's tags on every route, the route's
// params, query and body schemas, one answer schema (200, or 201 for a create) and a handler whose
// request is typed from those schemas. Routes with more than this (other answer codes, streams)
// register on fastify directly.
import type {
  FastifyContextConfig,
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HTTPMethods,
} from 'fastify';
import type { z } from 'zod';
import { deleted, successAnswer } from './answers.ts';

type Schema = z.ZodType | undefined;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteParts<P extends Schema, Q extends Schema, B extends Schema> {
  summary?: string;
  description?: string;
  params?: P;
  querystring?: Q;
  body?: B;
  /** The answer's schema (code 200). */
  answer?: z.ZodType;
  /** The answer's schema of a create: the route answers 201. */
  created?: z.ZodType;
}

export type TypedRequest<P extends Schema, Q extends Schema, B extends Schema> = FastifyRequest<{
  Params: Out<P>;
  Querystring: Out<Q>;
  Body: Out<B>;
}>;

type Handler<P extends Schema, Q extends Schema, B extends Schema> = (
  request: TypedRequest<P, Q, B>,
  reply: FastifyReply,
) => unknown;

type Register = <P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(
  url: string,
  parts: RouteParts<P, Q, B>,
  handler: Handler<P, Q, B>,
) => void;

/** A route schema without the parts left unset (fastify's schema walk expects them absent). */
export function routeSchema(parts: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(parts).filter(([, value]) => value !== undefined));
}

export interface JsonRoutes {
  get: Register;
  post: Register;
  put: Register;
  delete: Register;
  /**
   * DELETE `url`: runs `remove` and answers `{success, message}` naming what went (`account "x"`).
   */
  removal<P extends z.ZodType>(
    url: string,
    params: P,
    remove: (params: z.output<P>) => Promise<unknown>,
    named: (params: z.output<P>) => string,
  ): void;
}

/**
 * Registers routes on `app` under `tags` (and with `config`, where given: the auth hook reads it);
 * fastify's zod validator parses each request first.
 */
export function jsonRoutes(app: FastifyInstance, tags: string[], config?: FastifyContextConfig): JsonRoutes {
  const on =
    (method: HTTPMethods): Register =>
    (url, parts, handler) => {
      const { answer, created, ...rest } = parts;
      const response = created ? { 201: created } : answer && { 200: answer };
      app.route({
        method,
        url,
        ...(config ? { config } : {}),
        schema: routeSchema({ tags, ...rest, response }),
        handler: async (request, reply) => {
          const result = await handler(request as never, reply);
          if (created) reply.code(201);
          return result;
        },
      });
    };
  const remove = on('DELETE');
  return {
    get: on('GET'),
    post: on('POST'),
    put: on('PUT'),
    delete: remove,
    removal: (url, params, run, named) =>
      remove(url, { params, answer: successAnswer }, async (request) => {
        // The validator has parsed the params into their schema's output.
        const parsed = request.params as z.output<typeof params>;
        await run(parsed);
        return deleted(named(parsed));
      }),
  };
}
