// A small real file system for a data root, so a test can fill it up (a full disk, issue 26): a
// tmpfs of `sizeBytes`. As root it is mounted directly; without root (a CI runner) it is mounted in
// a user and mount namespace of its own, held by a `sleep` process: servers are started inside that
// namespace (nsenter) and the test reaches the files through /proc/<holder>/root. SMALL_DISK=userns
// picks the second way as root too. The mount is removed on close(), and on exit if a test dies.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, open, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SmallDisk {
  /** Where a process started through command() sees the small file system. */
  readonly path: string;
  /** How it was made: 'tmpfs' (mounted as root) or 'tmpfs in a user namespace'. */
  readonly mechanism: string;
  /** The command line (program first) that runs `argv` seeing the small disk at `path`. */
  command(argv: string[]): string[];
  /** Fills the free space with a file of its own; returns the bytes written. */
  fill(): Promise<number>;
  /** Removes what fill() wrote. */
  free(): Promise<void>;
  /** Where this test process reaches `relative` on the small disk. */
  reach(relative: string): string;
  close(): Promise<void>;
}

const FILLER = '.test-filler';

export async function smallDisk(sizeBytes: number): Promise<SmallDisk> {
  const path = await mkdtemp(join(tmpdir(), 'small-disk-'));
  const asRoot = process.getuid?.() === 0 && process.env['SMALL_DISK'] !== 'userns';
  let holder: ChildProcess | undefined;
  let hostRoot = path;
  let command = (argv: string[]): string[] => argv;
  let unmount: () => void;
  if (asRoot) {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeBytes},mode=0700`, 'tmpfs', path]);
    unmount = () => {
      try {
        execFileSync('umount', [path], { stdio: 'ignore' });
      } catch {
        execFileSync('umount', ['-l', path], { stdio: 'ignore' });
      }
    };
  } else {
    const script = `mount -t tmpfs -o size=${sizeBytes},mode=0700 tmpfs "$0" && echo mounted && exec sleep 100000`;
    const started = spawn('unshare', ['--user', '--map-root-user', '--mount', 'sh', '-c', script, path]);
    holder = started;
    let output = '';
    started.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    started.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      started.stdout.on('data', () => output.includes('mounted') && resolve());
      started.on('exit', () => reject(new Error(`could not mount a tmpfs in a user namespace: ${output}`)));
      started.on('error', reject);
    });
    hostRoot = `/proc/${started.pid}/root${path}`;
    const target = String(started.pid);
    command = (argv) => ['nsenter', '--target', target, '--user', '--mount', ...argv];
    unmount = () => started.kill('SIGKILL');
  }
  const onExit = (): void => unmount();
  process.once('exit', onExit);
  const reach = (relative: string): string => join(hostRoot, relative);
  return {
    path,
    mechanism: asRoot ? 'tmpfs' : 'tmpfs in a user namespace',
    command,
    reach,
    async fill() {
      const file = await open(reach(FILLER), 'a');
      let written = 0;
      try {
        for (const size of [1024 * 1024, 4096, 512]) {
          const chunk = Buffer.alloc(size, 1);
          for (;;) {
            try {
              written += (await file.write(chunk)).bytesWritten;
            } catch (error) {
              if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
              break;
            }
          }
        }
      } finally {
        await file.close().catch(() => undefined);
      }
      return written;
    },
    async free() {
      await unlink(reach(FILLER));
    },
    async close() {
      process.off('exit', onExit);
      unmount();
      if (holder && holder.exitCode === null && holder.signalCode === null)
        await new Promise((resolve) => holder?.once('exit', resolve));
      await rm(path, { recursive: true, force: true });
    },
  };
}
