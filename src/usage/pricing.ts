// What a call costs: the provider's price table (models.providers.<id>.pricing, USD per million
// tokens), overridden per model in the provider's models list. Costs are whole nano-dollars, so
// sums over millions of calls stay exact.
import type { Pricing, ProviderConfig } from '../model-providers/registry.ts';

export interface TokenCounts {
  inputTokens: number;
  cachedInputTokens: number;
  outputTokens: number;
  reasoningTokens: number;
}

/** The model name at the provider for a request's model (empty: the provider's default; an alias: its name). */
export function modelName(entry: ProviderConfig | undefined, requested: string): string {
  if (!entry) return requested || 'demo';
  const name = requested || entry.model;
  return entry.models?.find((model) => model.alias === name)?.name ?? name;
}

export function pricingOf(entry: ProviderConfig | undefined, model: string): Pricing | undefined {
  if (!entry) return undefined;
  return entry.models?.find((candidate) => candidate.name === model)?.pricing ?? entry.pricing;
}

/** USD per million tokens is 1000 nano-dollars per token. */
export function costNanos(tokens: TokenCounts, pricing: Pricing | undefined): number {
  if (!pricing) return 0;
  const cached = Math.min(tokens.cachedInputTokens, tokens.inputTokens);
  const cachedPrice = pricing.cached_input ?? pricing.input;
  return Math.round(
    (tokens.inputTokens - cached) * pricing.input * 1000 +
      cached * cachedPrice * 1000 +
      tokens.outputTokens * pricing.output * 1000,
  );
}

export const NANOS_PER_USD = 1_000_000_000;

export function usd(nanos: number): number {
  return Math.round(nanos) / NANOS_PER_USD;
}

export function nanos(dollars: number): number {
  return Math.round(dollars * NANOS_PER_USD);
}
