// Platforms redeliver events they think were not received (Feishu after 3 s without an answer, a
// reconnect replaying the last batch). Each account remembers the message ids it handled recently
// and drops a repeat. Bounded in count and age, so memory stays flat.

export class RecentIds {
  private readonly seenAt = new Map<string, number>();

  constructor(
    private readonly max = 4096,
    private readonly ttlMs = 60 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when `id` was seen within the time window; otherwise records it and returns false. */
  repeat(id: string): boolean {
    const now = this.now();
    const at = this.seenAt.get(id);
    if (at !== undefined && now - at < this.ttlMs) return true;
    this.seenAt.delete(id);
    this.seenAt.set(id, now);
    // Insertion order is age order: drop the oldest past the bound or the window.
    for (const [oldest, when] of this.seenAt) {
      if (this.seenAt.size <= this.max && now - when < this.ttlMs) break;
      this.seenAt.delete(oldest);
    }
    return false;
  }

  /** Forgets `id` (its message was not accepted, so its redelivery is not a repeat). */
  forget(id: string): void {
    this.seenAt.delete(id);
  }
}
