// The id rules and their zod schema. Node-free: the web UI's typecheck reads the resource schemas,
// which import this file (random ids and tokens live in ids.ts, which needs node:crypto).
import { z } from 'zod';

/** IDs of agents, rule chains, nodes, accounts, providers, skills: letters, digits, '-', '_', at most 64. */
export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Names that are members of every JavaScript object (`__proto__`, `constructor`, `toString`, ...).
 * Ids index records, so these are refused as ids rather than risk reading a prototype member.
 */
const RESERVED_IDS = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

export function isReservedId(value: string): boolean {
  return RESERVED_IDS.has(value);
}

export function isValidId(value: string): boolean {
  return ID_PATTERN.test(value) && !isReservedId(value);
}

/** The one schema of an id, for config keys, paths, queries and bodies. */
export const idSchema = z
  .string()
  .regex(ID_PATTERN, 'must be 1-64 letters, digits, "-" or "_"')
  .refine((value) => !isReservedId(value), 'is a name reserved by JavaScript; choose another');

/** The record's own value for key, never an inherited member such as `constructor`. */
export function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}
