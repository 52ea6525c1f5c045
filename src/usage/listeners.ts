// The subscribers of a metric hook (the budget events, the meter's usage rows): one that throws is
// logged and the others still run.
import { errorMessage } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';

export class Listeners<T> {
  private readonly listeners = new Set<(value: T) => void>();

  /** `what` names a listener in the warning when it fails: 'a usage listener'. */
  constructor(private readonly what: string) {}

  /** Adds a listener; the answer removes it. */
  add(listener: (value: T) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(value: T, logger: Logger | undefined): void {
    for (const listener of this.listeners) {
      try {
        listener(value);
      } catch (error) {
        logger?.warn({ err: errorMessage(error) }, `${this.what} failed`);
      }
    }
  }
}
