// A bare fastify server with one POST route answering a small JSON: the ceiling the service's own
// routes are compared against. Prints "listening on <url>" on stderr; stops on SIGTERM.
import Fastify from 'fastify';

const app = Fastify({ logger: false });
app.post('/echo', async () => ({ ok: true, hot: true }));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stderr.write(`bare fastify listening on ${address}\n`);
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
