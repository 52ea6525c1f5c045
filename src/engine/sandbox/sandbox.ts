// User JavaScript runs in QuickJS compiled to WebAssembly: a fresh context holds only the ECMAScript
// built-ins, so there is no process, require, fs, network or timers to reach. Each sandbox has its
// own runtime with a memory budget, a stack limit and a per-call deadline, and each call starts from
// the same globals: nothing one call leaves behind is seen by the next (see sandbox-guard.ts).
//
// Limits, as enforced: the deadline is checked by QuickJS's interrupt handler, which runs every
// ~10,000 interpreter steps, so a loop of heavy built-in calls can overrun it by far; that is why
// the engine runs sandboxes in worker threads under a watchdog (script-pool.ts), which is the hard
// limit. Memory is bounded by the heap guard (see quickjs-loader.ts) during a call, and by a usage
// check after any call that grew the heap, which rebuilds a runtime that holds more than its budget.
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import { loadQuickJs } from './quickjs-loader.ts';
import { GUARD_SOURCE } from './sandbox-guard.ts';
import { ScriptError } from './script-error.ts';
import type { QuickJs } from './quickjs-loader.ts';

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
  /** Limit on evaluating the source (which can run code: see script-pool.ts); default `timeoutMs`. */
  compileTimeoutMs?: number;
}

export { ScriptError } from './script-error.ts';

// QuickJS frames also use the host's native stack; 256 KiB stays well inside Node's default stack
// while still allowing recursion about 1,500 calls deep.
const MAX_STACK_BYTES = 256 * 1024;

type CallResult = ReturnType<QuickJSContext['evalCode']>;

interface SandboxState {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  /** The script's function, guarded: globals a call adds are removed after it. */
  entry: QuickJSHandle;
  /** What `entry` throws when a call left globals that could not be removed. */
  stale: QuickJSHandle;
}

/**
 * One compiled script. `source` is a JS expression evaluating to a function from one string to a
 * string; it is evaluated once here, and each `call` only passes a string in and reads one out.
 */
export class ScriptSandbox {
  private state: SandboxState | undefined;
  private deadline = Number.POSITIVE_INFINITY;
  private disposed = false;

  private constructor(
    private readonly quickJs: QuickJs,
    private readonly source: string,
    readonly limits: SandboxLimits,
  ) {
    quickJs.heap.reserve(limits.memoryBytes);
    try {
      this.state = this.build();
    } catch (error) {
      quickJs.heap.reserve(-limits.memoryBytes);
      throw error;
    }
  }

  /** Compiles the source; a syntax error (or a failure while evaluating it) throws ScriptError. */
  static async create(source: string, limits: SandboxLimits): Promise<ScriptSandbox> {
    return ScriptSandbox.build(await loadQuickJs(), source, limits);
  }

  /** As `create`, with the module already loaded: compiles synchronously, so requests stay in order. */
  static build(quickJs: QuickJs, source: string, limits: SandboxLimits): ScriptSandbox {
    return new ScriptSandbox(quickJs, source, limits);
  }

  call(input: string): string {
    if (this.disposed) throw new ScriptError('script sandbox is closed');
    const output = this.attempt(input);
    if (output !== undefined) return output;
    // The previous call left globals the guard could not remove: this one runs in a fresh context.
    this.reset();
    const retried = this.attempt(input);
    if (retried === undefined) throw new ScriptError('script failed: its context could not be reset');
    return retried;
  }

  /** One call of the script; undefined when the context was stale and nothing ran. */
  private attempt(input: string): string | undefined {
    const state = (this.state ??= this.build());
    const { context } = state;
    const { heap } = this.quickJs;
    const heapBefore = heap.size();
    heap.budget(this.limits.memoryBytes);
    this.deadline = Date.now() + this.limits.timeoutMs;
    try {
      const argument = context.newString(input);
      const result = context.callFunction(state.entry, context.undefined, argument);
      argument.dispose();
      if (result.error && context.sameValue(result.error, state.stale)) {
        result.error.dispose();
        return undefined;
      }
      if (result.error) {
        const failure = this.describe(context, result.error, this.limits.timeoutMs);
        result.error.dispose();
        if (failure.broken) this.reset();
        throw new ScriptError(failure.message);
      }
      const text = context.getString(result.value);
      result.value.dispose();
      return text;
    } catch (error) {
      if (error instanceof ScriptError) throw error;
      // The host itself failed (native stack, wasm trap): the runtime's state is unknown, so it is
      // dropped without freeing rather than risk an assertion inside QuickJS.
      this.state = undefined;
      throw new ScriptError(`script failed: ${error instanceof Error ? error.message : String(error)}`);
    } finally {
      this.deadline = Number.POSITIVE_INFINITY;
      heap.release();
      if (heap.size() > heapBefore) this.dropIfOverBudget();
    }
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.quickJs.heap.reserve(-this.limits.memoryBytes);
    this.reset();
  }

  private build(): SandboxState {
    const { module, heap } = this.quickJs;
    heap.budget(this.limits.memoryBytes);
    try {
      return this.evaluate(module.newRuntime());
    } finally {
      heap.release();
    }
  }

  private evaluate(runtime: QuickJSRuntime): SandboxState {
    runtime.setMemoryLimit(this.limits.memoryBytes);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    runtime.setInterruptHandler(() => Date.now() > this.deadline);
    const context = runtime.newContext();
    const limitMs = this.limits.compileTimeoutMs ?? this.limits.timeoutMs;
    const owned: QuickJSHandle[] = [];
    const keep = (handle: QuickJSHandle): QuickJSHandle => {
      owned.push(handle);
      return handle;
    };
    try {
      // The guard goes first, since evaluating the source can already run code. It is ours and ends
      // (in a few ms, longer while the module warms up), so only the source is held to the limit.
      const guard = keep(this.unwrap(context, context.evalCode(GUARD_SOURCE, 'guard.js'), limitMs));
      const wrap = keep(context.getProp(guard, 0));
      this.deadline = Date.now() + limitMs;
      const script = keep(this.unwrap(context, context.evalCode(this.source, 'script.js'), limitMs));
      const entry = this.unwrap(context, context.callFunction(wrap, context.undefined, script), limitMs);
      return { runtime, context, entry, stale: context.getProp(guard, 1) };
    } catch (error) {
      for (const handle of owned.splice(0)) handle.dispose();
      context.dispose();
      runtime.dispose();
      throw error;
    } finally {
      this.deadline = Number.POSITIVE_INFINITY;
      for (const handle of owned) handle.dispose();
    }
  }

  /** The value of an evaluation, or its exception as a ScriptError. */
  private unwrap(context: QuickJSContext, result: CallResult, limitMs: number): QuickJSHandle {
    if (!result.error) return result.value;
    const failure = this.describe(context, result.error, limitMs);
    result.error.dispose();
    throw new ScriptError(failure.message);
  }

  /** A runtime keeping more than its budget between calls (promise jobs, say) starts afresh next call. */
  private dropIfOverBudget(): void {
    const state = this.state;
    if (!state) return;
    const used = /memory used\s+\d+\s+(\d+)/.exec(state.runtime.dumpMemoryUsage())?.[1];
    if (used !== undefined && Number(used) > this.limits.memoryBytes) this.reset();
  }

  private reset(): void {
    const state = this.state;
    this.state = undefined;
    if (!state) return;
    state.entry.dispose();
    state.stale.dispose();
    state.context.dispose();
    state.runtime.dispose();
  }

  /** Turns a QuickJS exception into text; limits leave the runtime marked for rebuilding. */
  private describe(
    context: QuickJSContext,
    error: QuickJSHandle,
    limitMs: number,
  ): { message: string; broken: boolean } {
    let dumped: unknown;
    try {
      dumped = context.dump(error);
    } catch {
      dumped = undefined;
    }
    const name = readString(dumped, 'name');
    const message = readString(dumped, 'message') ?? (typeof dumped === 'string' ? dumped : undefined);
    if (name === 'InternalError' && message === 'interrupted') {
      return { message: `script timed out after ${limitMs} ms`, broken: true };
    }
    if (dumped === undefined || dumped === null || message === 'out of memory') {
      return { message: 'script exceeded memory limit', broken: true };
    }
    const text = name === undefined ? (message ?? String(dumped)) : `${name}: ${message ?? ''}`;
    return { message: text, broken: false };
  }
}

function readString(value: unknown, key: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const field = (value as Record<string, unknown>)[key];
  return typeof field === 'string' ? field : undefined;
}
