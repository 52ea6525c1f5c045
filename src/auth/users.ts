// security.users entries are `<password>` or `<password>:<API_KEY>`; the password part may be a
// scrypt hash written by PUT /auth/password. Passwords therefore cannot contain ':'.
import { createHmac } from 'node:crypto';

export interface UserEntry {
  username: string;
  password: string;
  apiKey: string | undefined;
}

export function parseUserEntry(username: string, value: string): UserEntry {
  const colon = value.indexOf(':');
  if (colon < 0) return { username, password: value, apiKey: undefined };
  const apiKey = value.slice(colon + 1);
  return { username, password: value.slice(0, colon), apiKey: apiKey === '' ? undefined : apiKey };
}

export function formatUserEntry(entry: { password: string; apiKey: string | undefined }): string {
  return entry.apiKey ? `${entry.password}:${entry.apiKey}` : entry.password;
}

/**
 * A short fingerprint of the stored password; tokens carry it, so a new password voids old tokens.
 * Keyed with the server's secret: a leaked token gives nothing to guess the password against.
 */
export function passwordVersion(secret: Uint8Array, username: string, password: string): string {
  return createHmac('sha256', secret)
    .update(`password-version\0${username}\0${password}`)
    .digest()
    .subarray(0, 12)
    .toString('base64url');
}
