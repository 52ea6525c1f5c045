// The fake OpenAI-compatible upstream of test/fakes in its own process, so the service and the load
// generator do not share its CPU. Options as JSON in argv[2] (e.g. {"latencyMs":200}). Prints
// "listening on <url>" (the base URL, ending in /v1) on stderr; stops on SIGTERM.
import { startFakeUpstream, type FakeUpstreamOptions } from '../test/fakes/fake-upstream.ts';

const options = JSON.parse(process.argv[2] ?? '{}') as FakeUpstreamOptions;
// Benchmarks send hundreds of thousands of requests; keep none of their bodies.
const upstream = await startFakeUpstream({ captureLimit: 0, ...options });
process.stderr.write(`fake upstream listening on ${upstream.url}\n`);
process.once('SIGTERM', () => void upstream.close().then(() => process.exit(0)));
