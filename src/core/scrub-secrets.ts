// The one way a text that may quote a credential (a platform's error, a transport error naming the
// URL, a driver's message) is cleaned before it reaches an answer, a log line or a status.

/** What a removed secret is shown as, everywhere (the log's redaction writes the same). */
export const REDACTED = '[redacted]';

/** Secrets shorter than this are not looked for: replacing "a" or "12" would garble the text. */
const SHORTEST = 4;

/**
 * Replaces every secret, plain and URL-encoded, and every match of `patterns` (token shapes such as
 * Slack's `xoxb-...`) with `[redacted]`.
 */
export function scrubSecrets(
  text: string,
  secrets: Iterable<string | undefined>,
  patterns: readonly RegExp[] = [],
): string {
  let out = text;
  for (const pattern of patterns) out = out.replace(pattern, REDACTED);
  // Longest first, so a secret that contains another is removed whole.
  const sorted = [...secrets]
    .filter((secret): secret is string => secret !== undefined && secret.length >= SHORTEST)
    .sort((a, b) => b.length - a.length);
  for (const secret of sorted) {
    out = out.split(secret).join(REDACTED);
    const encoded = encodeURIComponent(secret);
    if (encoded !== secret) out = out.split(encoded).join(REDACTED);
  }
  return out;
}
