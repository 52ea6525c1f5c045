// The one logger type of the service. The server makes its logger (pino, the same one fastify
// writes request lines to) before any service and hands it to each at construction; a service
// built without one (a test, a benchmark) gets `silentLogger`.

export interface Logger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** Drops every line. */
export const silentLogger: Logger = {
  info: () => undefined,
  warn: () => undefined,
};
