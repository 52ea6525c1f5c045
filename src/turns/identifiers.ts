// Exact identifiers a summary must keep: order numbers and other ids, UUIDs, URLs, e-mail
// addresses, file paths and amounts of money. Found by pattern, deterministically, in the order
// they first appear; the compaction guard checks each one is in the summary verbatim.

const PATTERNS: RegExp[] = [
  // URLs (without trailing punctuation).
  /\bhttps?:\/\/[^\s<>"'`)\]]+[^\s<>"'`)\].,;:!?]/g,
  // E-mail addresses.
  /\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b/g,
  // UUIDs.
  /\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b/g,
  // Order numbers and ids: capitals then digits (A-7731, ORD-2024-118, INV_0042, TKT99812), #12345.
  /\b[A-Z][A-Z0-9]{0,9}[-_]?\d{3,}(?:[-_][A-Z0-9]+)*\b/g,
  /#\d{3,}\b/g,
  // File paths: absolute, home or relative with a folder (/var/log/app.log, ~/x/y, src/a/b.ts).
  /(?:~|\.{1,2})?\/(?:[\w.-]+\/)+[\w.-]+|\b[\w-]+\/(?:[\w.-]+\/)*[\w-]+\.[A-Za-z0-9]{1,6}\b/g,
  // Amounts: a currency sign or code with a number.
  /[$€£¥]\s?\d[\d,]*(?:\.\d+)?|\b\d[\d,]*(?:\.\d+)?\s?(?:USD|EUR|GBP|CNY|RMB|JPY)\b/g,
];

const MAX_IDENTIFIERS = 500;

/** The distinct identifiers in a text, in order of first appearance. */
export function extractIdentifiers(text: string): string[] {
  const found: Array<{ at: number; value: string }> = [];
  for (const pattern of PATTERNS) {
    for (const match of text.matchAll(pattern)) found.push({ at: match.index, value: match[0] });
  }
  found.sort((a, b) => a.at - b.at || b.value.length - a.value.length);
  const seen = new Set<string>();
  const result: string[] = [];
  for (const { value } of found) {
    if (seen.has(value)) continue;
    // An id inside a longer identifier already kept (an order number in a URL) needs no check of its own.
    if (result.some((kept) => kept.includes(value))) continue;
    seen.add(value);
    result.push(value);
    if (result.length >= MAX_IDENTIFIERS) break;
  }
  return result;
}

/** The identifiers of `required` missing from `summary`. */
export function missingIdentifiers(required: string[], summary: string): string[] {
  return required.filter((identifier) => !summary.includes(identifier));
}
