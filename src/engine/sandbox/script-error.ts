// The error of a user script, in a module of its own: the main thread needs the class, and importing
// it from sandbox.ts would load the QuickJS library into a thread that never runs a script.

/** A script failed: syntax, a thrown error, or a limit. The message is safe to show to users. */
export class ScriptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ScriptError';
  }
}
