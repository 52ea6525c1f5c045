// WebSocket subscribers in a process of their own, so their reading does not share the load
// generator's event loop: argv[2] the ws:// URL, argv[3] how many. Prints "listening on <url>"
// once all are subscribed (the helper convention), and on SIGTERM the events received, on stderr.
import WebSocket from 'ws';

const url = process.argv[2] as string;
const count = Number(process.argv[3] ?? 100);
let received = 0;
const sockets = await Promise.all(
  Array.from({ length: count }, () => {
    const socket = new WebSocket(url);
    socket.on('message', () => (received += 1));
    return new Promise<WebSocket>((resolve, reject) => {
      socket.once('open', () => resolve(socket));
      socket.once('error', reject);
    });
  }),
);
process.stderr.write(`${count} subscribers listening on ${url.replace('ws://', 'http://')}\n`);
process.once('SIGTERM', () => {
  process.stderr.write(`received ${received}\n`);
  for (const socket of sockets) socket.terminate();
  process.exit(0);
});
