// Feishu's protection of event callbacks. With an Encrypt Key set, the body is
// {"encrypt": base64(iv + AES-256-CBC(event))} with key SHA-256(encrypt_key) and PKCS#7 padding, and
// each request is signed: X-Lark-Signature = hex SHA-256(timestamp + nonce + encrypt_key + raw body).
// Every event also carries the Verification Token. Comparisons take constant time.
import { createDecipheriv, createHash, timingSafeEqual } from 'node:crypto';

/** The event JSON inside an encrypted body; throws when the payload does not decrypt. */
export function decryptEvent(encrypted: string, encryptKey: string): string {
  const key = createHash('sha256').update(encryptKey, 'utf8').digest();
  const data = Buffer.from(encrypted, 'base64');
  if (data.length < 32 || data.length % 16 !== 0) throw new Error('malformed encrypted event');
  const decipher = createDecipheriv('aes-256-cbc', key, data.subarray(0, 16));
  return Buffer.concat([decipher.update(data.subarray(16)), decipher.final()]).toString('utf8');
}

export function eventSignature(timestamp: string, nonce: string, encryptKey: string, body: Buffer): string {
  return createHash('sha256').update(`${timestamp}${nonce}${encryptKey}`, 'utf8').update(body).digest('hex');
}

/** Equality of two secrets in constant time, whatever their lengths. */
export function sameSecret(given: string, expected: string): boolean {
  const a = createHash('sha256').update(given, 'utf8').digest();
  const b = createHash('sha256').update(expected, 'utf8').digest();
  return timingSafeEqual(a, b);
}

/** Whether the signature headers of a request match its raw body. */
export function validSignature(
  headers: Record<string, string | undefined>,
  encryptKey: string,
  body: Buffer,
): boolean {
  const timestamp = headers['x-lark-request-timestamp'];
  const nonce = headers['x-lark-request-nonce'];
  const signature = headers['x-lark-signature'];
  if (!timestamp || !nonce || !signature) return false;
  return sameSecret(signature.toLowerCase(), eventSignature(timestamp, nonce, encryptKey, body));
}
