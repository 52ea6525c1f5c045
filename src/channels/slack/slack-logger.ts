// The @slack/logger interface over our channel logger. The SDK's debug and info lines are dropped
// (debug lines carry whole payloads); warnings and errors pass, as text only (never an error
// object, whose request may hold the Authorization header), with anything like a token removed.
import type { Logger as SlackLogger, LogLevel } from '@slack/bolt';
import type { Logger } from '../../core/logger.ts';
import { scrubSecrets } from '../../core/scrub-secrets.ts';

/** Slack tokens (xoxb-, xoxp-, xapp-, ...), removed from any text the SDK or Slack hands us. */
export const SLACK_TOKENS = /\b(?:xox[a-z]|xapp)-[A-Za-z0-9-]+/g;

function textOf(parts: unknown[]): string {
  return parts
    .map((part) => (part instanceof Error ? part.message : typeof part === 'string' ? part : ''))
    .filter((part) => part !== '')
    .join(' ')
    .slice(0, 500);
}

export function quietSlackLogger(logger: Logger | undefined): SlackLogger {
  let level = 'warn' as LogLevel;
  const warn = (...parts: unknown[]): void => {
    const text = scrubSecrets(textOf(parts), [], [SLACK_TOKENS]);
    if (text !== '') logger?.warn({ platform: 'slack' }, `slack sdk: ${text}`);
  };
  return {
    debug: () => undefined,
    info: () => undefined,
    warn,
    error: warn,
    setLevel: (next) => {
      level = next;
    },
    getLevel: () => level,
    setName: () => undefined,
  };
}
