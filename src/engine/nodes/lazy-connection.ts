// A connection a node opens on its first message and closes with its chain: an open that fails is
// tried again by the next message.

export interface LazyConnection<T> {
  /** The open connection, opening it first when there is none. */
  get(): Promise<T>;
  /** Forgets the connection (it closed by itself); the next `get` opens another. */
  reset(): void;
  /** Closes the connection if one is open. */
  close(): Promise<void>;
}

export function lazyConnection<T>(
  open: () => Promise<T>,
  close: (value: T) => void | Promise<void>,
): LazyConnection<T> {
  let current: Promise<T> | undefined;
  return {
    get(): Promise<T> {
      current ??= open().catch((error: unknown) => {
        current = undefined;
        throw error;
      });
      return current;
    },
    reset(): void {
      current = undefined;
    },
    async close(): Promise<void> {
      const opened = current;
      current = undefined;
      const value = await opened?.catch(() => undefined);
      if (value !== undefined) await close(value);
    },
  };
}
