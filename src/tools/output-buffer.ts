/**
 * Keeps the first and last half of a byte stream up to a cap: the start shows what a command did,
 * the end usually holds its errors and summary. Memory stays bounded however much is written.
 */
export class OutputBuffer {
  private readonly head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer = Buffer.alloc(0);
  private total = 0;
  private readonly half: number;

  constructor(private readonly maxBytes: number) {
    this.half = Math.floor(maxBytes / 2);
  }

  append(chunk: Buffer): void {
    this.total += chunk.length;
    if (this.headBytes < this.half) {
      const taken = chunk.subarray(0, this.half - this.headBytes);
      this.head.push(taken);
      this.headBytes += taken.length;
      chunk = chunk.subarray(taken.length);
    }
    if (chunk.length === 0) return;
    const joined = Buffer.concat([this.tail, chunk]);
    this.tail = joined.subarray(Math.max(0, joined.length - (this.maxBytes - this.half)));
  }

  /** The kept text, with a marker where bytes were dropped. */
  text(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const dropped = this.total - this.headBytes - this.tail.length;
    if (dropped <= 0) return head + this.tail.toString('utf8');
    return `${head}\n[… ${dropped} bytes of output omitted …]\n${this.tail.toString('utf8')}`;
  }
}
