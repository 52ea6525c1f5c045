import { randomBytes, randomUUID } from 'node:crypto';

/** IDs of agents, rule chains, nodes, accounts, providers, skills: letters, digits, '-', '_', at most 64. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidId(value: string): boolean {
  return ID_PATTERN.test(value);
}

export function newId(): string {
  return randomUUID();
}

/** A random URL-safe token, used for API keys and secrets. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}
