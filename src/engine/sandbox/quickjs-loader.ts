// Loads the QuickJS WebAssembly module once per thread (each script worker has its own instance and
// heap; see script-worker.ts), with a guard on how far that heap may grow.
//
// Why the guard: in the Emscripten build QuickJS cannot measure its own blocks (malloc_usable_size
// is compiled out), so `runtime.setMemoryLimit` only refuses a single allocation larger than the
// limit; many smaller ones pass (quickjs-emscripten issues #255 and #271). So the heap itself is
// bounded: it may hold the budgets of the live sandboxes (never more than MAX_HEAP_BYTES), and since
// script calls run one at a time on a thread, one call may grow it by at most its own budget.
// When growth is refused, malloc fails and QuickJS throws "out of memory".
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { newQuickJSWASMModuleFromVariant, newVariant, RELEASE_SYNC } from 'quickjs-emscripten';
import type { QuickJSWASMModule } from 'quickjs-emscripten';

/** The most the shared WebAssembly heap may ever grow to, whatever the sandboxes' budgets. */
export const MAX_HEAP_BYTES = 1024 * 1024 * 1024;
const PAGE_BYTES = 64 * 1024;
const INITIAL_HEAP_BYTES = 16 * 1024 * 1024;

// The WebAssembly global exists in Node, but this project's TypeScript libs do not declare it.
interface WasmMemory {
  readonly buffer: ArrayBuffer;
}
interface WasmApi {
  Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory;
  instantiate(bytes: Uint8Array, imports: object): Promise<{ instance: object }>;
}
const wasmApi = (): WasmApi => (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

type Imports = Record<string, Record<string, unknown>>;

export class HeapGuard {
  /** The module's linear memory, made here so its maximum is ours (Emscripten's default is 2 GiB). */
  readonly memory: WasmMemory = new (wasmApi().Memory)({
    initial: INITIAL_HEAP_BYTES / PAGE_BYTES,
    maximum: MAX_HEAP_BYTES / PAGE_BYTES,
  });
  private reserved = 0;
  private growthLimit = INITIAL_HEAP_BYTES;
  /** False when the build's resize import was not found: then only the memory's maximum holds. */
  enforced = false;

  /** Current heap size in bytes. */
  size(): number {
    return this.memory.buffer.byteLength;
  }

  /** A sandbox's budget joins (or, negative, leaves) what the heap may hold. */
  reserve(bytes: number): void {
    this.reserved += bytes;
    this.release();
  }

  /** For one call: the heap may grow by at most `bytes` until `release`. */
  budget(bytes: number): void {
    this.growthLimit = Math.min(this.ceiling(), this.size() + bytes);
  }

  release(): void {
    this.growthLimit = this.ceiling();
  }

  private ceiling(): number {
    return Math.min(MAX_HEAP_BYTES, INITIAL_HEAP_BYTES + this.reserved);
  }

  /** Wraps Emscripten's heap-resize import (the one function that calls `memory.grow`) with the limit. */
  hook(imports: Imports): void {
    const candidates = Object.values(imports).flatMap((namespace) =>
      Object.entries(namespace)
        .filter(([, value]) => typeof value === 'function' && String(value).includes('.grow('))
        .map(([name]) => ({ namespace, name })),
    );
    const [found] = candidates;
    // Anything but exactly one match means the build changed: leave it alone rather than guess.
    if (!found || candidates.length !== 1) return;
    const resize = found.namespace[found.name] as (requested: number) => unknown;
    found.namespace[found.name] = (requested: number): unknown =>
      requested >>> 0 > this.growthLimit ? false : resize(requested);
    this.enforced = true;
  }
}

export interface QuickJs {
  module: QuickJSWASMModule;
  heap: HeapGuard;
}

let loading: Promise<QuickJs> | undefined;

/** The module and its heap guard, loaded on first use and shared by every sandbox. */
export function loadQuickJs(): Promise<QuickJs> {
  loading ??= instantiate();
  return loading;
}

async function instantiate(): Promise<QuickJs> {
  const heap = new HeapGuard();
  const wasmPath = createRequire(import.meta.url).resolve('@jitl/quickjs-wasmfile-release-sync/wasm');
  const bytes = await readFile(wasmPath);
  let failed: (error: unknown) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => {
    failed = reject;
  });
  const variant = newVariant(RELEASE_SYNC, {
    wasmMemory: heap.memory as unknown as NonNullable<Parameters<typeof newVariant>[1]['wasmMemory']>,
    emscriptenModule: {
      instantiateWasm(imports, onSuccess) {
        heap.hook(imports as unknown as Imports);
        wasmApi()
          .instantiate(bytes, imports)
          .then(({ instance }) => onSuccess(instance as Parameters<typeof onSuccess>[0]), failed);
        // Emscripten's way of saying "instantiating asynchronously".
        return {};
      },
    },
  });
  const module = await Promise.race([newQuickJSWASMModuleFromVariant(variant), failure]);
  return { module, heap };
}
