// Model calls as the observability sees them: latency, time to first token, errors and tokens by
// provider and model; a `chat` span with the GenAI semantic conventions under the turn's span, whose
// traceparent is sent to the provider; and a model step in the turn's trace.
import { errorMessage, isAppError } from '../core/errors.ts';
import type { ModelEvent, ModelProvider, ModelRequest } from '../model-providers/types.ts';
import type { ModelCaller } from '../model-providers/caller.ts';
import { TurnWatch, type WatchContext } from './turn-watch.ts';

export function watchProvider(provider: ModelProvider, context: WatchContext): ModelProvider {
  return {
    id: provider.id,
    demo: provider.demo,
    stream: (request) => watchedStream(provider, request, context, callerTurn(request.caller)),
  };
}

/** The turn a model caller belongs to, if the observability made it. */
export function callerTurn(caller: ModelCaller | undefined): TurnWatch | undefined {
  const turn = caller?.turn;
  return turn instanceof TurnWatch ? turn : undefined;
}

async function* watchedStream(
  provider: ModelProvider,
  request: ModelRequest,
  context: WatchContext,
  turn: TurnWatch | undefined,
): AsyncGenerator<ModelEvent> {
  const { metrics, tracing } = context;
  const modelName = request.model || 'default';
  const labels = { provider: metrics.providers.value(provider.id), model: metrics.models.value(modelName) };
  const started = performance.now();
  const at = turn ? Math.round(turn.elapsed()) : 0;
  const span = tracing?.start(`chat ${modelName}`, 'client', turn?.span, () => ({
    'gen_ai.operation.name': 'chat',
    'gen_ai.system': provider.id,
    'gen_ai.provider.name': provider.id,
    'gen_ai.request.model': modelName,
    ...(request.params?.temperature !== undefined
      ? { 'gen_ai.request.temperature': request.params.temperature }
      : {}),
    ...(request.params?.maxTokens !== undefined
      ? { 'gen_ai.request.max_tokens': request.params.maxTokens }
      : {}),
    ...(context.captureContent ? { 'gen_ai.input.messages': JSON.stringify(request.messages) } : {}),
  }));
  const sent = span
    ? { ...request, headers: { ...request.headers, traceparent: span.traceparent() } }
    : request;
  let firstMs: number | undefined;
  let inputTokens: number | undefined;
  let outputTokens: number | undefined;
  const finishReasons: string[] = [];
  let failure: unknown;
  let text = '';
  try {
    for await (const event of provider.stream(sent)) {
      if (firstMs === undefined && (event.type === 'text-delta' || event.type === 'tool-call')) {
        firstMs = performance.now() - started;
      }
      if (event.type === 'usage') {
        inputTokens = (inputTokens ?? 0) + event.usage.promptTokens;
        outputTokens = (outputTokens ?? 0) + event.usage.completionTokens;
      } else if (event.type === 'finish') finishReasons.push(event.reason);
      else if (event.type === 'text-delta' && context.captureContent) text += event.text;
      yield event;
    }
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    const durationMs = performance.now() - started;
    const outcome = failure === undefined ? 'success' : 'error';
    metrics.modelCalls.inc({ ...labels, outcome });
    metrics.modelDuration.observe(labels, durationMs / 1000);
    if (firstMs !== undefined) metrics.modelFirstToken.observe(labels, firstMs / 1000);
    if (failure !== undefined)
      metrics.modelErrors.inc({ ...labels, kind: isAppError(failure) ? failure.kind : 'internal' });
    if (inputTokens) metrics.modelTokens.inc({ ...labels, direction: 'input' }, inputTokens);
    if (outputTokens) metrics.modelTokens.inc({ ...labels, direction: 'output' }, outputTokens);
    if (span?.recording) {
      span.setAttributes({
        ...(inputTokens !== undefined ? { 'gen_ai.usage.input_tokens': inputTokens } : {}),
        ...(outputTokens !== undefined ? { 'gen_ai.usage.output_tokens': outputTokens } : {}),
        ...(finishReasons.length > 0 ? { 'gen_ai.response.finish_reasons': finishReasons } : {}),
        ...(context.captureContent && text !== ''
          ? { 'gen_ai.output.messages': JSON.stringify([{ role: 'assistant', content: text }]) }
          : {}),
      });
      if (failure !== undefined)
        span.fail(errorMessage(failure), isAppError(failure) ? failure.kind : 'error');
      span.end();
    }
    turn?.step({
      kind: 'model',
      at,
      durationMs: Math.round(durationMs),
      provider: provider.id,
      model: modelName,
      ...(firstMs !== undefined ? { firstTokenMs: Math.round(firstMs) } : {}),
      ...(inputTokens !== undefined ? { inputTokens } : {}),
      ...(outputTokens !== undefined ? { outputTokens } : {}),
      ...(finishReasons[0] !== undefined ? { finishReason: finishReasons[0] } : {}),
      ...(failure !== undefined ? { error: errorMessage(failure) } : {}),
    });
  }
}
