// A query that failed because the database server could not be reached (PostgreSQL restarting, cut
// off by the network), told apart from a query that is wrong: the first is a 503 the client may
// retry (issue 26: the instance reports not-ready and recovers by itself), the second a bug.

export const DATABASE_UNREACHABLE_MESSAGE = 'the database is unreachable; try again shortly';

/** Socket failures: in this process only the PostgreSQL driver reaches out without an AppError. */
const SOCKET_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTCONN',
]);
/** PostgreSQL's own: connection exceptions (08…), the server shutting down or starting (57P01-03). */
const SERVER_CODE = /^(08[0-9A-Z]{3}|57P0[123])$/;
const DRIVER_TEXT =
  /Connection terminated|connection error and is not queryable|timeout exceeded when trying to connect|Client was closed and is not queryable/i;

export function isDatabaseUnreachable(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || SERVER_CODE.test(code))) return true;
    if (DRIVER_TEXT.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}
