// A log file that rotates by size: when the next write would pass `maxBytes`, file.log becomes
// file.log.1 (file.log.1 becomes .2, and so on), the oldest beyond `keep` is deleted, and writing
// goes on in a new file.log. Writes are synchronous appends (a log line must not be lost to a crash
// that follows it); the file is the owner's only (0600): log lines name users and sessions.
import { closeSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

export class RotatingFile {
  private fd: number;
  private size: number;

  constructor(
    readonly path: string,
    readonly maxBytes = 10 * 1024 * 1024,
    readonly keep = 5,
  ) {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    this.fd = openSync(path, 'a', 0o600);
    this.size = fstatSync(this.fd).size;
  }

  write(chunk: string | Uint8Array): boolean {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (this.size > 0 && this.size + bytes.length > this.maxBytes) this.rotate();
    writeSync(this.fd, bytes);
    this.size += bytes.length;
    return true;
  }

  private rotate(): void {
    closeSync(this.fd);
    rmSync(`${this.path}.${this.keep}`, { force: true });
    for (let index = this.keep - 1; index >= 1; index--) {
      try {
        renameSync(`${this.path}.${index}`, `${this.path}.${index + 1}`);
      } catch {
        // that generation does not exist yet
      }
    }
    if (this.keep > 0) renameSync(this.path, `${this.path}.1`);
    else rmSync(this.path, { force: true });
    this.fd = openSync(this.path, 'a', 0o600);
    this.size = 0;
  }

  close(): void {
    closeSync(this.fd);
  }
}
