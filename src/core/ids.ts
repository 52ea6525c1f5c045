import { randomBytes, randomUUID } from 'node:crypto';

export function newId(): string {
  return randomUUID();
}

/** A random URL-safe token, used for API keys and secrets. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
