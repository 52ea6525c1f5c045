// Password hashing (scrypt) and constant-time comparison of secrets by their SHA-256 digest.
import { createHash, randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  length: number,
) => Promise<Buffer>;
const PREFIX = 'scrypt$';
const KEY_LENGTH = 32;

export function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}

/** Compares two secrets in constant time, whatever their lengths. */
export function secretsEqual(a: string, b: string): boolean {
  return timingSafeEqual(digest(a), digest(b));
}

export function isPasswordHash(value: string): boolean {
  return value.startsWith(PREFIX);
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scrypt(password, salt, KEY_LENGTH);
  return `${PREFIX}${salt.toString('base64url')}$${hash.toString('base64url')}`;
}

/** Checks a password against a stored value: a scrypt hash, or a plain password from the config file. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (!isPasswordHash(stored)) return secretsEqual(password, stored);
  const [, salt, hash] = stored.split('$');
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scrypt(password, Buffer.from(salt, 'base64url'), expected.length || KEY_LENGTH);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}
