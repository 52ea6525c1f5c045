// User JavaScript runs in QuickJS compiled to WebAssembly: a fresh context holds only the ECMAScript
// built-ins, so there is no process, require, fs, network or timers to reach. Each sandbox has its
// own runtime with a memory limit, a stack limit and a per-call deadline.
import { getQuickJS } from 'quickjs-emscripten';
import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten';

let quickJsModule: Promise<QuickJSWASMModule> | undefined;

/** The WebAssembly module, loaded once per process and shared by every sandbox. */
export function loadQuickJs(): Promise<QuickJSWASMModule> {
  quickJsModule ??= getQuickJS();
  return quickJsModule;
}

export interface SandboxLimits {
  timeoutMs: number;
  memoryBytes: number;
}

/** A script failed: syntax, a thrown error, or a limit. The message is safe to show to users. */
export class ScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptError';
  }
}

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
    private readonly module: QuickJSWASMModule,
    private readonly source: string,
    private readonly limits: SandboxLimits,
  ) {
    this.state = this.build();
  }

  /** Compiles the source; a syntax error (or a failure while evaluating it) throws ScriptError. */
  static async create(source: string, limits: SandboxLimits): Promise<ScriptSandbox> {
    return new ScriptSandbox(await loadQuickJs(), source, limits);
  }

  call(input: string): string {
    if (this.disposed) throw new ScriptError('script sandbox is closed');
    const state = (this.state ??= this.build());
    const { context } = state;
    this.deadline = Date.now() + this.limits.timeoutMs;
    let argument: QuickJSHandle | undefined;
    try {
      argument = context.newString(input);
      const result = context.callFunction(state.entry, context.undefined, argument);
      argument.dispose();
      argument = undefined;
      if (result.error) {
        const failure = this.describe(context, result.error);
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
    }
  }

  dispose(): void {
    this.disposed = true;
    this.reset();
  }

  private build(): SandboxState {
    const runtime = this.module.newRuntime();
    runtime.setMemoryLimit(this.limits.memoryBytes);
    runtime.setMaxStackSize(MAX_STACK_BYTES);
    runtime.setInterruptHandler(() => Date.now() > this.deadline);
    const context = runtime.newContext();
    this.deadline = Date.now() + this.limits.timeoutMs;
    const result = context.evalCode(this.source, 'script.js');
    this.deadline = Number.POSITIVE_INFINITY;
    if (result.error) {
      const failure = this.describe(context, result.error);
      result.error.dispose();
      context.dispose();
      runtime.dispose();
      throw new ScriptError(failure.message);
    }
    return { runtime, context, entry: result.value };
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
  private describe(context: QuickJSContext, error: QuickJSHandle): { message: string; broken: boolean } {
    let dumped: unknown;
    try {
      dumped = context.dump(error);
    } catch {
      dumped = undefined;
    }
    const name = readString(dumped, 'name');
    const message = readString(dumped, 'message') ?? (typeof dumped === 'string' ? dumped : undefined);
    if (name === 'InternalError' && message === 'interrupted') {
      return { message: `script timed out after ${this.limits.timeoutMs} ms`, broken: true };
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
