// What one instance publishes on a Redis channel for the others: its origin token beside the payload,
// so that each instance passes over what it sent itself (change events, live events).

/**
 * The payload under `field` of an envelope another instance sent; undefined for text that is not
 * JSON, an envelope this instance (`origin`) sent, or a payload `accepts` refuses.
 */
export function peerPayload<T>(
  text: string,
  origin: string,
  field: string,
  accepts: (value: unknown) => value is T,
): T | undefined {
  let envelope: { from?: unknown } & Record<string, unknown>;
  try {
    envelope = JSON.parse(text) as { from?: unknown } & Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (envelope.from === origin) return undefined;
  const payload = envelope[field];
  return accepts(payload) ? payload : undefined;
}
