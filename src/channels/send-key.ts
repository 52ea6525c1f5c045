// Idempotency keys of sends. A recorded message's reply carries a key derived from its inbox id, so
// that an instance taking the message over after its owner died mid-send can send the same answer
// again and a platform that supports it drops the repeat: Feishu's `uuid` (one message per uuid for
// an hour), Discord's `nonce` with `enforce_nonce` (the same message returned for a few minutes).
// A text split into pieces gets one key per piece.
import { createHash } from 'node:crypto';

/** The key of piece `index` of a send named `key`, at most `maxLength` characters of [A-Za-z0-9_-]. */
export function pieceKey(key: string, index: number, maxLength: number): string {
  return createHash('sha256').update(`${key}\u0000${index}`).digest('base64url').slice(0, maxLength);
}
