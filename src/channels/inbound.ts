// Handles one inbound message: policy check, binding, one agent turn in the session of the peer,
// reply in the same chat. Nothing here throws: every outcome is returned (and logged without the
// message's content).
import type { Logger } from '../core/logger.ts';
import { crashPoint } from '../core/fault-points.ts';
import type { Config } from '../config/schema.ts';
import { errorMessage, isAppError } from '../core/errors.ts';
import type { TurnRunner } from '../turns/agent-turn.ts';
import type { Attribution } from '../usage/attribution.ts';
import { admitWithin, isRefusal, type UsageGuard } from '../usage/guard.ts';
import { sessionKey } from '../turns/session-key.ts';
import { offerPairing } from './pairing.ts';
import { withSendRetry } from './send-retry.ts';
import type { PairingStore } from './pairing-store.ts';
import { checkPolicy, peerOf, resolveAgent } from './routing.ts';
import type { ChannelAccount, ChannelAdapter, InboundMessage, ReplyStream } from './types.ts';

/** Sent instead of an answer when the turn fails; it never carries the failure's details. */
export const APOLOGY = 'Sorry, I could not answer that just now. Please try again later.';
/** Follows the part of an answer already sent when the turn fails after it (a model stream that broke off). */
export const INTERRUPTED = '[The answer was interrupted. Please try again.]';
/** Closes a streamed reply whose answer came out empty (a plain reply is then not sent at all). */
export const EMPTY_ANSWER = '(no answer)';

/** Session scope of channel conversations: one session per account and peer (group or DM sender). */
export const CHANNEL_SESSION_SCOPE = 'per_account_channel_peer';

/** `taken`: another instance took the message over while this one worked on it; nothing was sent. */
export type InboundOutcome = 'ignored' | 'refused' | 'replied' | 'apologized' | 'failed' | 'taken';

export interface InboundDeps {
  config: () => Config;
  turns: TurnRunner;
  adapter: ChannelAdapter;
  account: ChannelAccount;
  logger?: Logger | undefined;
  signal: AbortSignal;
  /** Time limit of one agent turn, besides the turn runner's own (agents.turn_timeout_ms). */
  turnTimeoutMs?: number;
  /** Rate limits and budgets checked before the turn; a refused user is told once (usage/guard.ts). */
  guard?: UsageGuard;
  /** Pending DM pairing requests (dm_policy pairing); without it such senders are only refused. */
  pairing?: PairingStore | undefined;
  /**
   * The durable inbox's hold on the message: asked just before the answer (or apology) goes out,
   * which it records; false means another instance took the message over (this one stalled past
   * its lease) and answers it, so nothing is sent from here.
   */
  stillOwned?: (answer: string) => Promise<boolean>;
  /**
   * The answer an earlier attempt began to send (its instance died before the message was marked
   * answered): sent again, with `sendKey`, instead of running the turn again.
   */
  recordedAnswer?: string | undefined;
  /** Idempotency key of the reply's sends (SendTextOptions.idempotencyKey): the inbox id. */
  sendKey?: string | undefined;
  /** Marks the message answered; started together with each attempt at sending the reply. */
  markSent?: () => Promise<void>;
  /** The attempt failed: the message is unanswered again (the send is retried, or it fails). */
  unmarkSent?: () => Promise<void>;
  /** The reply a previous attempt began (ReplyStream.ref): this attempt edits it instead of a new one. */
  resumeRef?: string | undefined;
  /** Told the ref of a reply begun, so that an instance taking the message over can resume it. */
  onReplyStarted?: (ref: string) => Promise<void>;
}

/** One session per account and peer; a thread (Slack, Feishu topics) has a session of its own. */
export function channelSession(message: InboundMessage, agentId: string) {
  const peer = `${message.accountId}:${peerOf(message)}`;
  if (message.threadId) {
    const info = { agentId, channel: message.platform, scope: 'thread' };
    return { key: sessionKey({ ...info, scopeId: `${peer}:${message.threadId}` }), info };
  }
  const info = { agentId, channel: message.platform, scope: CHANNEL_SESSION_SCOPE };
  return { key: sessionKey({ ...info, scopeId: peer }), info };
}

/** A streamed reply, edited no more often than the platform allows; edits never overlap. */
interface ThrottledReply {
  show(text: string): void;
  finish(text: string): Promise<void>;
}

async function startReply(
  message: InboundMessage,
  deps: InboundDeps,
  where: object,
): Promise<ThrottledReply | undefined> {
  const { adapter } = deps;
  if (!adapter.capabilities.editMessage || !adapter.beginReply) return undefined;
  let stream: ReplyStream | undefined;
  try {
    if (deps.resumeRef !== undefined && adapter.resumeReply)
      stream = await adapter.resumeReply(deps.account, message, deps.resumeRef, deps.signal);
    stream ??= await adapter.beginReply(deps.account, message, deps.signal);
    if (!stream) return undefined;
    // Not waited for: a database away must not hold the answer up (the note only helps a takeover).
    if (stream.ref !== undefined && stream.ref !== deps.resumeRef) void deps.onReplyStarted?.(stream.ref);
  } catch (error) {
    // The answer still goes out as a plain message.
    deps.logger?.warn({ ...where, err: errorMessage(error) }, 'could not start a streamed reply');
    return undefined;
  }
  const interval = adapter.editIntervalMs ?? 1000;
  let latest = '';
  let shown = '';
  let lastEdit = 0;
  let editing: Promise<void> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const edit = (): void => {
    timer = undefined;
    if (editing || latest === shown) return;
    const text = latest;
    lastEdit = Date.now();
    editing = stream
      .update(text)
      .then(() => {
        shown = text;
      })
      .catch((error: unknown) =>
        deps.logger?.warn({ ...where, err: errorMessage(error) }, 'could not update the reply'),
      )
      .finally(() => {
        editing = undefined;
      });
  };
  return {
    show(text) {
      latest = text;
      if (timer || editing) return;
      timer = setTimeout(edit, Math.max(0, lastEdit + interval - Date.now()));
    },
    async finish(text) {
      clearTimeout(timer);
      await editing;
      await stream.finish(text);
    },
  };
}

export async function handleInbound(message: InboundMessage, deps: InboundDeps): Promise<InboundOutcome> {
  const where = {
    platform: message.platform,
    accountId: message.accountId,
    chatType: message.chatType,
    chatId: message.chatId,
    senderId: message.senderId,
  };
  if (message.text.trim() === '' && !message.images?.length) return 'ignored';
  if (deps.recordedAnswer !== undefined) return sendRecorded(deps.recordedAnswer, message, deps, where);
  const config = deps.config();
  const account = config.channels[message.platform]?.accounts[message.accountId] ?? deps.account.config;
  const decision = checkPolicy(account, message);
  if (!decision.allowed) {
    deps.logger?.info({ ...where, reason: decision.reason }, 'channel message refused by policy');
    if (decision.pairing && deps.pairing) await offerPairing(message, deps, deps.pairing, where);
    return 'refused';
  }
  if (
    message.chatType === 'group' &&
    account.group_require_mention !== false &&
    message.mentioned === false
  ) {
    return 'ignored';
  }
  const route = resolveAgent(config.bindings, message);
  const who: Attribution = {
    agentId: route.agentId,
    channel: message.platform,
    accountId: message.accountId,
    userId: message.senderId,
  };
  if (deps.guard) {
    try {
      await admitWithin(deps.guard.admitChannelUser(who));
    } catch (error) {
      if (isRefusal(error)) return refuse(error, who, message, deps, where);
      // A limit that cannot be checked (its store is away) is not waived: the user is told.
      deps.logger?.warn(
        { ...where, err: errorMessage(error) },
        'channel message not admitted: usage check failed',
      );
      return sendPlain(APOLOGY, message, deps, where, 'apologized');
    }
  }
  // The turn runner has its own limit (agents.turn_timeout_ms); this one only when asked for.
  const signal = deps.turnTimeoutMs
    ? AbortSignal.any([deps.signal, AbortSignal.timeout(deps.turnTimeoutMs)])
    : deps.signal;
  const { adapter } = deps;
  const stream = await startReply(message, deps, where);
  const stopTyping =
    !stream && adapter.capabilities.typing && adapter.showTyping
      ? adapter.showTyping(deps.account, message, deps.signal)
      : undefined;
  let reply = '';
  let outcome: InboundOutcome;
  try {
    const turn = deps.turns.run({
      agentId: route.agentId,
      input: message.text,
      ...(message.images?.length ? { images: message.images.map((image) => image.url) } : {}),
      session: channelSession(message, route.agentId),
      metadata: {
        channel: message.platform,
        accountId: message.accountId,
        chatId: message.chatId,
        chatType: message.chatType,
        senderId: message.senderId,
        ...(message.messageId ? { messageId: message.messageId } : {}),
        ...(message.threadId ? { threadId: message.threadId } : {}),
      },
      signal,
    });
    for await (const event of turn) {
      if (event.type === 'error') throw event.error;
      if (event.type === 'done') reply = event.text;
      else if (event.type === 'text-delta') {
        reply += event.text;
        stream?.show(reply);
      }
    }
    outcome = 'replied';
  } catch (error) {
    if (deps.signal.aborted) {
      stopTyping?.();
      return 'failed';
    }
    if (deps.guard && isRefusal(error)) {
      stopTyping?.();
      // Refused at a model call (the budget ran out during the turn): the same single notice.
      const notice = await deps.guard.noticeFor(error, who).catch(() => undefined);
      if (!stream) return notice ? sendPlain(notice, message, deps, where, 'refused') : 'refused';
      reply = notice ?? '';
      outcome = 'refused';
    } else {
      deps.logger?.warn(
        {
          ...where,
          agentId: route.agentId,
          kind: isAppError(error) ? error.kind : 'internal',
          err: errorMessage(error),
        },
        'channel agent turn failed',
      );
      // Text already sent stays, marked as cut short; otherwise the apology.
      reply = reply.trim() === '' ? APOLOGY : `${reply}\n\n${INTERRUPTED}`;
      outcome = 'apologized';
    }
  } finally {
    stopTyping?.();
  }
  if (stream) {
    const final = reply.trim() === '' ? EMPTY_ANSWER : reply;
    return delivered(final, message, () => stream.finish(final), 'finish', deps, where, outcome);
  }
  if (reply.trim() === '') {
    deps.logger?.info({ ...where, agentId: route.agentId }, 'the agent gave an empty answer; nothing sent');
    return outcome;
  }
  return sendPlain(reply, message, deps, where, outcome);
}

/** Tells a user whose message a budget or rate limit refused, once per period (or minute). */
async function refuse(
  error: unknown,
  who: Attribution,
  message: InboundMessage,
  deps: InboundDeps,
  where: object,
): Promise<InboundOutcome> {
  deps.logger?.info(
    { ...where, agentId: who.agentId, reason: error instanceof Error ? error.message : String(error) },
    'channel message refused by a budget or rate limit',
  );
  const notice = await deps.guard?.noticeFor(error, who).catch(() => undefined);
  return notice ? sendPlain(notice, message, deps, where, 'refused') : 'refused';
}

async function sendPlain(
  text: string,
  message: InboundMessage,
  deps: InboundDeps,
  where: object,
  outcome: InboundOutcome,
): Promise<InboundOutcome> {
  const send = (): Promise<unknown> =>
    deps.adapter.sendText(deps.account, message.chatId, text, {
      replyTo: message.chatType === 'group' ? message.messageId : undefined,
      threadId: message.threadId,
      replyContext: message.replyContext,
      signal: deps.signal,
      idempotencyKey: deps.sendKey,
    });
  return delivered(text, message, send, 'send', deps, where, outcome);
}

/**
 * Sends the answer an earlier attempt began to send: the final edit of the reply it began, or the
 * same send with the same idempotency key (a platform without one may show it twice: see the README).
 */
async function sendRecorded(
  answer: string,
  message: InboundMessage,
  deps: InboundDeps,
  where: object,
): Promise<InboundOutcome> {
  deps.logger?.info(where, 'sending the recorded answer of a message taken over mid-send');
  const stream = deps.resumeRef === undefined ? undefined : await startReply(message, deps, where);
  if (stream)
    return delivered(answer, message, () => stream.finish(answer), 'finish', deps, where, 'replied');
  return sendPlain(answer, message, deps, where, 'replied');
}

/**
 * Sends `text` with retries once the durable inbox confirms the message is still this instance's
 * (and records the answer): `outcome` once it went through, 'taken' when another instance took the
 * message over (nothing is sent), 'failed' (logged unless stopped) if it never went through.
 */
async function delivered(
  text: string,
  message: InboundMessage,
  send: () => Promise<unknown>,
  what: 'finish' | 'send',
  deps: InboundDeps,
  where: object,
  outcome: InboundOutcome,
): Promise<InboundOutcome> {
  if (deps.stillOwned && !(await deps.stillOwned(text))) return 'taken';
  crashPoint('inbox-before-send', message.text);
  // The mark starts with the request, so that it reaches the database within microseconds of it: an
  // instance killed while the platform answers has its message marked answered, and nothing is sent
  // twice. A failed attempt is unmarked before it is retried.
  const attempt = async (): Promise<unknown> => {
    const marking = deps.markSent?.();
    try {
      const sent = await send();
      await marking;
      return sent;
    } catch (error) {
      await marking;
      await deps.unmarkSent?.();
      throw error;
    }
  };
  try {
    await withSendRetry(attempt, retrying(deps, where));
    return outcome;
  } catch (error) {
    if (!deps.signal.aborted)
      deps.logger?.warn(
        { ...where, err: errorMessage(error) },
        `could not ${what} the channel reply; given up after retries`,
      );
    return 'failed';
  }
}

/** Retries of a reply's send: bounded, cancelled with the message, each one logged. */
function retrying(deps: InboundDeps, where: object) {
  return {
    signal: deps.signal,
    onRetry: (attempt: number, delayMs: number, error: Error) =>
      deps.logger?.warn(
        { ...where, attempt, delayMs, err: errorMessage(error) },
        'channel reply not sent; retrying',
      ),
  };
}
