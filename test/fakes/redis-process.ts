// A Redis server of the test's own (redis-server on a free port, nothing saved), so a test can stop
// and restart it; the shared Redis on 6379 is never touched.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  /** Stops it (SIGKILL: everything it held is gone). */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.write('PING\r\n');
    });
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
  });
}

export async function startRedisProcess(): Promise<RedisProcess> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      {
        stdio: 'ignore',
      },
    );
    const deadline = Date.now() + 10_000;
    while (!(await answers(port))) {
      if (Date.now() > deadline) throw new Error(`redis-server did not start on port ${port}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const stop = async (): Promise<void> => {
    const running = child;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };
  await start();
  return { port, url: `redis://127.0.0.1:${port}`, start, stop, close: stop };
}
