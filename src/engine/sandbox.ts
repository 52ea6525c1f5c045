// User JavaScript runs in QuickJS compiled to WebAssembly: a fresh context holds only the ECMAScript
// built-ins, so there is no process, require, fs, network or timers to reach. Each sandbox has its
// own runtime with a memory budget, a stack limit and a per-call deadline.
//
// Limits, as enforced: the deadline is checked by QuickJS's interrupt handler, which runs every
// ~10,000 interpreter steps, so a loop of heavy built-in calls can overrun it by far; that is why
// the engine runs sandboxes in worker threads under a watchdog (script-pool.ts), which is the hard
// limit. Memory is bounded by the heap guard (see quickjs-loader.ts) during a call, and by a usage
// check after any call that grew the heap, which rebuilds a runtime that holds more than its budget.
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime } from 'quickjs-emscripten';
import { loadQuickJs } from './quickjs-loader.ts';
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

interface SandboxState {
  runtime: QuickJSRuntime;
  context: QuickJSContext;
  entry: QuickJSHandle;
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
    this.deadline = Date.now() + limitMs;
    const result = context.evalCode(this.source, 'script.js');
    this.deadline = Number.POSITIVE_INFINITY;
    if (result.error) {
      const failure = this.describe(context, result.error, limitMs);
      result.error.dispose();
      context.dispose();
      runtime.dispose();
      throw new ScriptError(failure.message);
    }
    return { runtime, context, entry: result.value };
  }

  /** A runtime keeping more than its budget between calls (globals, say) starts afresh next call. */
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
