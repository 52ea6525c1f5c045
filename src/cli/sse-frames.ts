// The `data:` of server-sent events as their bytes arrive: the chat stream and `logs --follow`.

export class SseFrames {
  private readonly decoder = new TextDecoder();
  private buffer = '';

  /** The data of every frame these bytes complete, in order; frames without data are left out. */
  push(bytes: Uint8Array): string[] {
    this.buffer += this.decoder.decode(bytes, { stream: true });
    const found: string[] = [];
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const frame = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trimStart())
        .join('\n');
      if (data) found.push(data);
    }
    return found;
  }
}
