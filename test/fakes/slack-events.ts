// Slack's Events API as the chaos tests need it: each user message is POSTed, signed, to an
// instance's /webhooks/slack/{account}, and delivered again (with X-Slack-Retry-Num) until an instance
// answers 2xx, as Slack does when a delivery fails or takes more than 3 seconds. Which instance gets
// each attempt is the caller's (a load balancer over the live ones).
import { slackSignature } from '../../src/channels/slack/events-api.ts';
import type { FakeSlack } from './fake-slack.ts';

export interface Delivery {
  eventId: string;
  /** Attempts made, the first included. */
  attempts: number;
  /** Statuses (or "error: …") of the attempts, in order. */
  outcomes: string[];
  /** When an instance acknowledged it (ms since the epoch); undefined when none did in time. */
  ackedAt?: number;
}

export interface SlackEvents {
  /**
   * Delivers a user's DM `text` in `channel` until acknowledged or `deadlineMs` passes. `targets`
   * gives the base URLs to try (called at each attempt; rotated).
   */
  deliver(
    targets: () => string[],
    message: { channel: string; user: string; text: string; ts: string; eventId?: string },
    options?: { deadlineMs?: number; retryDelayMs?: number },
  ): Promise<Delivery>;
  /** Delivers once more an event acknowledged before (a platform's redelivery), to `target`. */
  redeliver(
    target: string,
    delivery: Delivery,
    message: { channel: string; user: string; text: string; ts: string },
  ): Promise<number>;
}

export function slackEvents(slack: FakeSlack, accountId: string, signingSecret: string): SlackEvents {
  let turn = 0;
  const post = async (target: string, body: string, retry: number): Promise<number> => {
    const timestamp = String(Math.floor(Date.now() / 1000));
    const response = await fetch(`${target}/webhooks/slack/${accountId}`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-slack-request-timestamp': timestamp,
        'x-slack-signature': slackSignature(signingSecret, timestamp, body),
        ...(retry > 0 ? { 'x-slack-retry-num': String(retry), 'x-slack-retry-reason': 'http_error' } : {}),
      },
      body,
      // Slack waits 3 seconds for the acknowledgement.
      signal: AbortSignal.timeout(3_000),
    });
    await response.arrayBuffer();
    return response.status;
  };
  const bodyOf = (message: { channel: string; user: string; text: string; ts: string }, eventId: string) =>
    slack.callbackBody(slack.messageEvent({ ...message, channelType: 'im' }), eventId);
  return {
    async deliver(targets, message, options = {}) {
      const eventId = message.eventId ?? `Ev-${message.channel}-${message.ts}`;
      const body = bodyOf(message, eventId);
      const delivery: Delivery = { eventId, attempts: 0, outcomes: [] };
      const deadline = Date.now() + (options.deadlineMs ?? 60_000);
      while (Date.now() < deadline) {
        const live = targets();
        const target = live[turn++ % Math.max(1, live.length)];
        if (target !== undefined) {
          delivery.attempts += 1;
          try {
            const status = await post(target, body, delivery.attempts - 1);
            delivery.outcomes.push(String(status));
            if (status >= 200 && status < 300) {
              delivery.ackedAt = Date.now();
              return delivery;
            }
          } catch (error) {
            delivery.outcomes.push(`error: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
        await new Promise((resolve) => setTimeout(resolve, options.retryDelayMs ?? 200));
      }
      return delivery;
    },
    async redeliver(target, delivery, message) {
      delivery.attempts += 1;
      return post(target, bodyOf(message, delivery.eventId), delivery.attempts - 1);
    },
  };
}
