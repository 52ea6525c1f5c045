// One error vocabulary for the whole service. Services throw AppError with a kind; the HTTP error
// handler is the only place that maps kinds to status codes.

export type ErrorKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not-found'
  | 'conflict'
  | 'too-large'
  | 'unsupported-media'
  | 'rate-limited'
  | 'upstream'
  | 'not-implemented'
  | 'timeout'
  | 'unavailable';

export const STATUS_BY_KIND: Record<ErrorKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'too-large': 413,
  'unsupported-media': 415,
  'rate-limited': 429,
  upstream: 502,
  'not-implemented': 501,
  unavailable: 503,
  timeout: 504,
};

export class AppError extends Error {
  readonly kind: ErrorKind;

  constructor(kind: ErrorKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AppError';
    this.kind = kind;
  }

  get status(): number {
    return STATUS_BY_KIND[this.kind];
  }
}

export const invalid = (message: string): AppError => new AppError('invalid', message);
export const notFound = (message: string): AppError => new AppError('not-found', message);
export const conflict = (message: string): AppError => new AppError('conflict', message);
export const unauthenticated = (message: string): AppError => new AppError('unauthenticated', message);
export const forbidden = (message: string): AppError => new AppError('forbidden', message);

export function isAppError(value: unknown): value is AppError {
  return value instanceof AppError;
}

/** A message that is safe to show for any thrown value: AppError text, otherwise a generic one. */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
