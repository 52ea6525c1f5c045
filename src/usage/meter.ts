// The usage meter: wraps every model provider the registry builds (ModelMeter), so each model call,
// whoever makes it, is checked against the budgets before it starts (with a reservation for it)
// and recorded when it ends: the tokens the provider reported (cached and reasoning included) or a
// marked estimate, its cost from the price table, and how it ended. Retried attempts and failed
// calls are recorded too.
import { AppError, isAppError } from '../core/errors.ts';
import type { ModelMeter, ProviderConfig } from '../model-providers/registry.ts';
import type { ModelEvent, ModelProvider, ModelRequest, Usage } from '../model-providers/types.ts';
import { UNATTRIBUTED, type Attribution } from './attribution.ts';
import type { Budgets, Reservation } from './budgets.ts';
import { estimateInputTokens, reservationTokens } from './estimate.ts';
import { Listeners } from './listeners.ts';
import { localDay } from './periods.ts';
import { costNanos, modelName, pricingOf, type TokenCounts } from './pricing.ts';
import type { UsageRow } from './usage-store.ts';
import type { Logger } from '../core/logger.ts';

export interface UsageSink {
  add(row: UsageRow): void;
}

export interface UsageMeterOptions {
  sink: UsageSink;
  budgets: Budgets;
  logger?: Logger;
  now?: () => number;
}

export class UsageMeter implements ModelMeter {
  private readonly listeners = new Listeners<UsageRow>('a usage listener');
  private readonly now: () => number;

  constructor(private readonly options: UsageMeterOptions) {
    this.now = options.now ?? Date.now;
  }

  /** The metric hook of calls: every row recorded. */
  onCall(listener: (row: UsageRow) => void): () => void {
    return this.listeners.add(listener);
  }

  wrap(provider: ModelProvider, entry: ProviderConfig | undefined): ModelProvider {
    return {
      id: provider.id,
      demo: provider.demo,
      stream: (request) => this.stream(provider, entry, request),
    };
  }

  private async *stream(
    provider: ModelProvider,
    entry: ProviderConfig | undefined,
    request: ModelRequest,
  ): AsyncGenerator<ModelEvent> {
    const who = request.caller?.attribution ?? UNATTRIBUTED;
    const model = modelName(entry, request.model);
    const pricing = pricingOf(entry, model);
    const held = reservationTokens(request);
    const amount = {
      tokens: held.input + held.output,
      nanos: costNanos(
        { inputTokens: held.input, cachedInputTokens: 0, outputTokens: held.output, reasoningTokens: 0 },
        pricing,
      ),
    };
    const reservation = await this.options.budgets
      .reserve(who, amount, request.signal)
      .catch((error: unknown) => {
        if (isAppError(error)) throw error;
        // Redis or the database away: no call is made that no budget could be checked for.
        throw new AppError('unavailable', 'the budgets could not be checked; try again', { cause: error });
      });
    const started = this.now();
    let usage: Usage | undefined;
    let outputCharacters = 0;
    let status: 'ok' | 'failed' | 'aborted' = 'aborted';
    let attemptStarted = started;
    let finished = false;
    try {
      for await (const event of provider.stream(request)) {
        switch (event.type) {
          case 'retry':
            this.record(
              this.row(who, provider.id, model, started, attemptStarted, 'retried', ZERO_TOKENS, false, 0),
            );
            attemptStarted = this.now();
            continue;
          case 'usage':
            // Providers that report more than once report running totals: the last one counts.
            usage = event.usage;
            // Who answered, for the turn's usage kept with its answer.
            yield { type: 'usage', usage: { ...event.usage, model } };
            continue;
          case 'text-delta':
            outputCharacters += event.text.length;
            break;
          case 'tool-call':
            outputCharacters += event.call.name.length + event.call.arguments.length;
            break;
          case 'finish':
            finished = true;
            break;
        }
        yield event;
      }
      status = 'ok';
    } catch (error) {
      status = request.signal.aborted || isAbortError(error) ? 'aborted' : 'failed';
      throw error;
    } finally {
      // A consumer that stops reading after the answer finished (the rest is only the end) got it all.
      if (status === 'aborted' && finished) status = 'ok';
      // A call that failed before any output, with nothing reported, was not billed.
      const unbilled = !usage && status === 'failed' && outputCharacters === 0;
      const tokens: TokenCounts = usage
        ? {
            inputTokens: usage.promptTokens,
            cachedInputTokens: usage.cachedTokens ?? 0,
            outputTokens: usage.completionTokens,
            reasoningTokens: usage.reasoningTokens ?? 0,
          }
        : unbilled
          ? ZERO_TOKENS
          : {
              inputTokens: estimateInputTokens(request),
              cachedInputTokens: 0,
              outputTokens: Math.ceil(outputCharacters / 4),
              reasoningTokens: 0,
            };
      const estimated = (!usage && !unbilled) || provider.demo;
      const cost = costNanos(tokens, pricing);
      this.record(
        this.row(who, provider.id, model, started, attemptStarted, status, tokens, estimated, cost),
      );
      await this.settle(reservation, tokens, cost);
    }
  }

  private async settle(
    reservation: Reservation | undefined,
    tokens: TokenCounts,
    cost: number,
  ): Promise<void> {
    if (!reservation) return;
    try {
      await this.options.budgets.settle(reservation, {
        tokens: tokens.inputTokens + tokens.outputTokens,
        nanos: cost,
      });
    } catch (error) {
      this.options.logger?.warn(
        { err: error instanceof Error ? error.message : String(error) },
        'could not count a model call against its budgets',
      );
    }
  }

  private row(
    who: Attribution,
    provider: string,
    model: string,
    callStarted: number,
    attemptStarted: number,
    status: string,
    tokens: TokenCounts,
    estimated: boolean,
    cost: number,
  ): UsageRow {
    const now = this.now();
    return {
      at: callStarted,
      day: localDay(callStarted),
      agent_id: who.agentId,
      provider,
      model,
      channel: who.channel,
      account_id: who.accountId,
      user_id: who.userId,
      input_tokens: tokens.inputTokens,
      cached_input_tokens: tokens.cachedInputTokens,
      output_tokens: tokens.outputTokens,
      reasoning_tokens: tokens.reasoningTokens,
      cost_nanos: cost,
      estimated: estimated ? 1 : 0,
      status,
      duration_ms: now - attemptStarted,
    };
  }

  private record(row: UsageRow): void {
    this.options.sink.add(row);
    this.listeners.emit(row, this.options.logger);
  }
}

/** An AbortSignal's default reason or an aborted fetch. */
function isAbortError(error: unknown): boolean {
  return error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError');
}

const ZERO_TOKENS: TokenCounts = Object.freeze({
  inputTokens: 0,
  cachedInputTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
});
