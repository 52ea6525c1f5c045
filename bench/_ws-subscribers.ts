// WebSocket subscribers in a process of their own, so their reading does not share the load
// generator's event loop: argv[2] the ws:// URL, argv[3] how many. Prints "listening on <url>"
// once all are subscribed (the helper convention), and on SIGTERM the events received, on stderr.
//
// They stand for operators' browsers on other machines, so they read as cheaply as a client can:
// a plain TCP socket after the upgrade, walking the frame headers to count events without decoding
// them. The first subscriber decodes every event (JSON), so the figures show the events are whole
// and of the expected types. A ws-library client per subscriber would spend more CPU on this
// shared machine than the server spends sending, and the benchmark would measure the subscribers.
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

const url = new URL(process.argv[2] as string);
const count = Number(process.argv[3] ?? 100);
let received = 0;
const types = new Map<string, number>();

/** Opens one subscription; resolves with the socket once the server answered 101. */
function subscribe(decode: boolean): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname);
    socket.setNoDelay(true);
    socket.once('error', reject);
    socket.write(
      `GET ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\n` +
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n\r\n`,
    );
    let pending: Buffer = Buffer.alloc(0);
    let upgraded = false;
    socket.on('data', (chunk: Buffer) => {
      let data: Buffer = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk;
      if (!upgraded) {
        const end = data.indexOf('\r\n\r\n');
        if (end < 0) {
          pending = data;
          return;
        }
        const head = data.subarray(0, end).toString();
        if (!head.startsWith('HTTP/1.1 101')) {
          reject(new Error(`upgrade refused: ${head.split('\r\n')[0] ?? ''}`));
          socket.destroy();
          return;
        }
        upgraded = true;
        resolve(socket);
        data = data.subarray(end + 4);
      }
      let offset = 0;
      // Server frames are unmasked: 2 header bytes, then a 16- or 64-bit length when the 7-bit one says so.
      while (data.length - offset >= 2) {
        const short = (data[offset + 1] as number) & 0x7f;
        const headerLength = short === 126 ? 4 : short === 127 ? 10 : 2;
        if (data.length - offset < headerLength) break;
        const length =
          short === 126
            ? data.readUInt16BE(offset + 2)
            : short === 127
              ? Number(data.readBigUInt64BE(offset + 2))
              : short;
        if (data.length - offset < headerLength + length) break;
        const opcode = (data[offset] as number) & 0x0f;
        if (opcode === 1) {
          received += 1;
          if (decode) {
            const text = data.subarray(offset + headerLength, offset + headerLength + length).toString();
            const type = (JSON.parse(text) as { type: string }).type;
            types.set(type, (types.get(type) ?? 0) + 1);
          }
        }
        offset += headerLength + length;
      }
      pending = offset < data.length ? Buffer.from(data.subarray(offset)) : Buffer.alloc(0);
    });
  });
}

const sockets = await Promise.all(Array.from({ length: count }, (_, index) => subscribe(index === 0)));
process.stderr.write(`${count} subscribers listening on ${url.href.replace('ws://', 'http://')}\n`);
process.once('SIGTERM', () => {
  process.stderr.write(`received ${received} types ${JSON.stringify(Object.fromEntries(types))}\n`);
  for (const socket of sockets) socket.destroy();
  process.exit(0);
});
