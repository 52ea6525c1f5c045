// The Events API mode: Slack POSTs each event to /webhooks/slack/{accountId}. Every request is
// checked first: X-Slack-Signature must be "v0=" + the hex HMAC-SHA256, keyed with the account's
// signing_secret, of "v0:{X-Slack-Request-Timestamp}:{raw body}" (compared in constant time), and
// the timestamp within 5 minutes of now; anything else is a 401 that starts nothing. The URL check
// (url_verification) is answered with its challenge. Slack redelivers an event not acknowledged
// within 3 seconds, so events are acknowledged at once and handled afterwards.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { WebhookReply, WebhookRequest } from '../types.ts';

/** How far a request's timestamp may be from now, in seconds (Slack's advice: 5 minutes). */
export const SIGNATURE_WINDOW_SECONDS = 5 * 60;

export function slackSignature(signingSecret: string, timestamp: string, body: Buffer | string): string {
  const hmac = createHmac('sha256', signingSecret);
  hmac.update(`v0:${timestamp}:`);
  hmac.update(body);
  return `v0=${hmac.digest('hex')}`;
}

/** Why a request fails the signature check, or undefined when it passes. */
export function signatureProblem(
  request: WebhookRequest,
  signingSecret: string,
  nowSeconds: number,
): string | undefined {
  const timestamp = request.headers['x-slack-request-timestamp'];
  const signature = request.headers['x-slack-signature'];
  if (!timestamp || !signature) return 'the request is not signed';
  if (!/^\d{1,12}$/.test(timestamp)) return 'bad timestamp';
  if (Math.abs(nowSeconds - Number(timestamp)) > SIGNATURE_WINDOW_SECONDS) {
    return 'the timestamp is outside the 5-minute window';
  }
  const expected = Buffer.from(slackSignature(signingSecret, timestamp, request.body));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad signature';
  return undefined;
}

export type EventsApiOutcome =
  { reply: WebhookReply } | { reply: WebhookReply; event: unknown; authorizedUserId?: string | undefined };

function parseObject(body: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(body.toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const refused = (error: string): { reply: WebhookReply } => ({ reply: { status: 401, body: { error } } });

/** Verifies one request and says what to answer and which event (if any) to handle. */
export function readEventsRequest(
  request: WebhookRequest,
  signingSecret: string | undefined,
  nowSeconds: number,
): EventsApiOutcome {
  if (request.method !== 'POST') return { reply: { status: 405, body: { error: 'events are POSTed' } } };
  if (!signingSecret) return refused('the account has no signing_secret');
  const problem = signatureProblem(request, signingSecret, nowSeconds);
  if (problem) return refused(problem);
  const payload = parseObject(request.body);
  // Interactivity payloads (form-encoded) are not used by this bot: acknowledged, nothing else.
  if (!payload) {
    const json = (request.headers['content-type'] ?? '').includes('json');
    return json
      ? { reply: { status: 400, body: { error: 'the body is not a JSON object' } } }
      : { reply: { status: 200 } };
  }
  if (payload['type'] === 'url_verification') {
    return { reply: { status: 200, body: { challenge: String(payload['challenge'] ?? '') } } };
  }
  if (payload['type'] !== 'event_callback') return { reply: { status: 200 } };
  const authorizations = payload['authorizations'];
  const first = Array.isArray(authorizations)
    ? (authorizations[0] as Record<string, unknown> | undefined)
    : undefined;
  const authorizedUserId = typeof first?.['user_id'] === 'string' ? first['user_id'] : undefined;
  return { reply: { status: 200 }, event: payload['event'], authorizedUserId };
}
