// Entry of a script worker thread: hosts the QuickJS sandboxes of every script of its pool and runs
// the requests of script-protocol.ts one at a time, in order. Before each request it posts on the
// shared progress board what it runs and until when, so the watchdog on the main thread can end
// this thread when a call overruns its limit (QuickJS's own interrupt check can be far too late).
import { parentPort, workerData } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { loadQuickJs } from './quickjs-loader.ts';
import type { QuickJs } from './quickjs-loader.ts';
import { ScriptSandbox } from './sandbox.ts';
import { progressBoard } from './script-protocol.ts';
import type { CompileRequest, RunRequest, WorkerReply, WorkerRequest } from './script-protocol.ts';

/** Results of one batch are sent in parts once they add up to this many characters. */
const REPLY_CHARS = 4 * 1024 * 1024;

function serve(port: MessagePort, quickJs: QuickJs, progress: SharedArrayBuffer): void {
  const { running, deadline } = progressBoard(progress);
  const sandboxes = new Map<number, ScriptSandbox>();
  const reply = (message: WorkerReply): void => port.postMessage(message);

  const begin = (seq: number, timeoutMs: number): void => {
    deadline[0] = Date.now() + timeoutMs;
    Atomics.store(running, 0, seq);
  };
  const idle = (): void => {
    deadline[0] = Number.POSITIVE_INFINITY;
    Atomics.store(running, 0, 0);
  };

  const compile = (request: CompileRequest): void => {
    begin(request.seq, request.compileTimeoutMs);
    let error: string | undefined;
    try {
      const { timeoutMs, memoryBytes, compileTimeoutMs } = request;
      const limits = { timeoutMs, memoryBytes, compileTimeoutMs };
      const sandbox = ScriptSandbox.build(quickJs, request.source, limits);
      sandboxes.get(request.scriptId)?.dispose();
      sandboxes.set(request.scriptId, sandbox);
    } catch (thrown) {
      error = messageOf(thrown);
    }
    idle();
    reply(
      error === undefined
        ? { type: 'compiled', seq: request.seq }
        : { type: 'compiled', seq: request.seq, error },
    );
  };

  const run = ({ seq, scriptIds, inputs }: RunRequest): void => {
    let first = 0;
    let outputs: string[] = [];
    let failed: number[] = [];
    let chars = 0;
    for (let index = 0; index < inputs.length; index += 1) {
      const sandbox = sandboxes.get(scriptIds[index] ?? 0);
      let output: string;
      try {
        if (!sandbox) throw new Error('script sandbox is closed');
        begin(seq + index, sandbox.limits.timeoutMs);
        output = sandbox.call(inputs[index] ?? '');
      } catch (thrown) {
        output = messageOf(thrown);
        failed.push(index - first);
      }
      outputs.push(output);
      chars += output.length;
      // Large results go back early, so this thread's heap never holds many of them at once.
      if (chars >= REPLY_CHARS && index + 1 < inputs.length) {
        reply({ type: 'ran', seq: seq + first, outputs, failed });
        first = index + 1;
        outputs = [];
        failed = [];
        chars = 0;
      }
    }
    idle();
    reply({ type: 'ran', seq: seq + first, outputs, failed });
  };

  port.on('message', (request: WorkerRequest) => {
    switch (request.type) {
      case 'compile':
        compile(request);
        break;
      case 'run':
        run(request);
        break;
      case 'dispose':
        sandboxes.get(request.scriptId)?.dispose();
        sandboxes.delete(request.scriptId);
        break;
    }
  });
  reply({ type: 'ready' });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

if (!parentPort) throw new Error('script-worker runs only as a worker thread');
serve(parentPort, await loadQuickJs(), (workerData as { progress: SharedArrayBuffer }).progress);
