// The callback protocol of a WeCom self-built app: every request is signed with the callback Token
// (msg_signature = sha1 of the sorted token, timestamp, nonce and ciphertext) and its payload is
// AES-256-CBC encrypted with the EncodingAESKey, the plaintext ending in the corp id it is meant for.
// Encryption and signatures come from @wecom/crypto; the checks around them are ours.
import { timingSafeEqual } from 'node:crypto';
import { decrypt, getSignature } from '@wecom/crypto';

export interface CallbackKeys {
  /** The callback Token. */
  token: string;
  /** The 43-character EncodingAESKey. */
  encodingAesKey: string;
  /** The corp id every payload must be addressed to. */
  corpId: string;
}

export interface SignedQuery {
  msg_signature?: string | undefined;
  timestamp?: string | undefined;
  nonce?: string | undefined;
}

/** Whether the value is an EncodingAESKey: 43 base64 characters that decode to an AES-256 key. */

/** Checks msg_signature over the ciphertext, in constant time. */
export function signatureValid(keys: CallbackKeys, query: SignedQuery, encrypted: string): boolean {
  const { msg_signature: signature, timestamp, nonce } = query;
  if (!signature || !timestamp || !nonce || !/^[0-9a-f]{40}$/i.test(signature)) return false;
  const expected = Buffer.from(getSignature(keys.token, timestamp, nonce, encrypted), 'utf8');
  return timingSafeEqual(expected, Buffer.from(signature.toLowerCase(), 'utf8'));
}

/** The decrypted payload, or undefined when it does not decrypt or is addressed to another corp. */
export function openPayload(keys: CallbackKeys, encrypted: string): string | undefined {
  try {
    const { message, id } = decrypt(keys.encodingAesKey, encrypted);
    return id === keys.corpId ? message : undefined;
  } catch {
    return undefined;
  }
}

const ENTITIES: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/**
 * The leaf elements of a callback's flat XML document, by tag name (the first of each name). Values
 * are CDATA sections (a value with "]]>" comes as several) or text with the five XML entities.
 */
export function xmlFields(xml: string): Record<string, string> {
  // No prototype: a tag named __proto__ is a field like any other.
  const fields = Object.create(null) as Record<string, string>;
  const element = /<([A-Za-z_][\w.-]*)>((?:<!\[CDATA\[[\s\S]*?\]\]>)+|[^<]*)<\/\1>/g;
  for (const [, name = '', raw = ''] of xml.matchAll(element)) {
    if (Object.hasOwn(fields, name)) continue;
    fields[name] = raw.startsWith('<![CDATA[')
      ? [...raw.matchAll(/<!\[CDATA\[([\s\S]*?)\]\]>/g)].map((part) => part[1] ?? '').join('')
      : raw.replace(/&(lt|gt|amp|quot|apos);/g, (_, entity: string) => ENTITIES[entity] ?? '');
  }
  return fields;
}
