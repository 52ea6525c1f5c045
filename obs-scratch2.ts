import { createTracing } from './src/observability/tracing.ts';
import { createServer } from 'node:http';
const server = createServer((req, res) => { req.resume(); req.on('end', () => { res.writeHead(200, {'content-type':'application/json'}); res.end('{}'); }); });
await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
const url = `http://127.0.0.1:${(server.address() as any).port}`;
const t = await createTracing({ endpoint: url, serviceName: 'x', serviceVersion: '1' });
const attrs = { 'gen_ai.operation.name': 'chat', 'gen_ai.system': 'openai', 'gen_ai.request.model': 'gpt-4o', 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 20 };
for (let r = 0; r < 5; r++) {
  const n = 20000;
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const root = t.start('invoke_agent main', 'server', undefined, attrs);
    const child = t.start('chat gpt-4o', 'client', root, attrs);
    child.setAttributes({ 'gen_ai.response.finish_reasons': ['stop'] });
    child.end(); root.end();
    if (i % 100 === 0) await new Promise((res) => setImmediate(res));
  }
  await t.flush();
  const c = process.cpuUsage(c0);
  console.log('µs/span', ((c.user + c.system) / (n * 2)).toFixed(2));
}
await t.close(); server.close();
