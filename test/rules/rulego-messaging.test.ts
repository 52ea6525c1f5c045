// mqttClient against the local Mosquitto, sendEmail against a tiny SMTP server, net over TCP and UDP,
// ws against a WebSocket server: each on 127.0.0.1, allowed explicitly (the guard refuses it by default).
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { WebSocketServer } from 'ws';
import { createTestApp, type TestApp } from '../fakes/app-harness.ts';
import { runLogged } from './rulego-harness.ts';

/** A minimal SMTP server: records each message's envelope and DATA. */
function smtpServer() {
  const mails: Array<{ from: string; to: string[]; data: string }> = [];
  const server = createServer((socket) => {
    let buffer = '';
    let inData = false;
    let mail = { from: '', to: [] as string[], data: '' };
    socket.write('220 test ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (;;) {
        if (inData) {
          const end = buffer.indexOf('\r\n.\r\n');
          if (end < 0) return;
          mail.data = buffer.slice(0, end);
          buffer = buffer.slice(end + 5);
          inData = false;
          mails.push(mail);
          mail = { from: '', to: [], data: '' };
          socket.write('250 queued\r\n');
          continue;
        }
        const line = buffer.indexOf('\r\n');
        if (line < 0) return;
        const command = buffer.slice(0, line);
        buffer = buffer.slice(line + 2);
        const verb = command.slice(0, 4).toUpperCase();
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 test\r\n');
        else if (verb === 'MAIL') {
          mail.from = command;
          socket.write('250 ok\r\n');
        } else if (verb === 'RCPT') {
          mail.to.push(command);
          socket.write('250 ok\r\n');
        } else if (verb === 'DATA') {
          inData = true;
          socket.write('354 go on\r\n');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 ok\r\n');
      }
    });
  });
  return { server, mails };
}

async function waitFor(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`not within 5 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('mqttClient, sendEmail, net and ws', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ config: { engine: { rest_allowed_hosts: ['127.0.0.1'] } } });
  });
  after(() => t.close());

  it('mqttClient publishes the data to the topic from metadata', async () => {
    const topic = `rulego/test/${Date.now()}`;
    const subscriber = await mqtt.connectAsync('mqtt://127.0.0.1:1883');
    const received: string[] = [];
    subscriber.on('message', (name, payload) => {
      if (name === topic) received.push(payload.toString('utf8'));
    });
    await subscriber.subscribeAsync(topic, { qos: 1 });
    try {
      const run = await runLogged(
        t,
        [
          {
            id: 'pub',
            type: 'mqttClient',
            configuration: { server: 'tcp://127.0.0.1:1883', topic: '${metadata.topic}', qos: 1 },
          },
        ],
        [],
        { temperature: 41 },
        { query: { topic } },
      );
      assert.deepEqual(run.node('pub').relationTypes, ['Success'], run.node('pub').err);
      await waitFor(() => received.length > 0, 'the MQTT message');
      assert.deepEqual(JSON.parse(received[0] ?? ''), { temperature: 41 });
    } finally {
      await subscriber.endAsync();
    }
  });

  it('sendEmail sends subject and body with ${...} replaced to every recipient', async () => {
    const { server, mails } = smtpServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const run = await runLogged(
        t,
        [
          {
            id: 'mail',
            type: 'sendEmail',
            configuration: {
              smtpHost: '127.0.0.1',
              smtpPort: port,
              email: {
                from: 'rules@example.com',
                to: 'a@example.com, b@example.com',
                subject: 'Alert ${metadata.level}',
                body: '<b>temperature ${msg.temperature}</b>',
              },
            },
          },
        ],
        [],
        { temperature: 41 },
        { query: { level: 'high' } },
      );
      assert.deepEqual(run.node('mail').relationTypes, ['Success'], run.node('mail').err);
      assert.equal(mails.length, 1);
      assert.equal(mails[0]?.to.length, 2);
      assert.match(mails[0]?.data ?? '', /Subject: Alert high/);
      assert.match(mails[0]?.data ?? '', /<b>temperature 41<\/b>/);
    } finally {
      server.close();
    }
  });

  it('net sends a line over TCP and a datagram over UDP', async () => {
    const lines: string[] = [];
    const tcp = createServer((socket) => socket.on('data', (chunk) => lines.push(chunk.toString('utf8'))));
    tcp.listen(0, '127.0.0.1');
    await once(tcp, 'listening');
    const udp = createSocket('udp4');
    const datagrams: string[] = [];
    udp.on('message', (chunk) => datagrams.push(chunk.toString('utf8')));
    udp.bind(0, '127.0.0.1');
    await once(udp, 'listening');
    try {
      const run = await runLogged(
        t,
        [
          {
            id: 'tcp',
            type: 'net',
            configuration: { server: `127.0.0.1:${(tcp.address() as AddressInfo).port}` },
          },
          {
            id: 'udp',
            type: 'net',
            configuration: { protocol: 'udp', server: `127.0.0.1:${udp.address().port}` },
          },
        ],
        [['tcp', 'Success', 'udp']],
        'hello',
      );
      assert.deepEqual(run.relations(), [
        ['tcp', ['Success']],
        ['udp', ['Success']],
      ]);
      await waitFor(
        () => lines.join('') === 'hello\n' && datagrams.length === 1,
        'the TCP line and the datagram',
      );
      assert.equal(datagrams[0], 'hello\n');
    } finally {
      tcp.close();
      udp.close();
    }
  });

  it('ws sends the data as a frame, with the handshake headers', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await once(wss, 'listening');
    const frames: string[] = [];
    let authorization = '';
    wss.on('connection', (socket, request) => {
      authorization = request.headers.authorization ?? '';
      socket.on('message', (data) => frames.push(String(data)));
    });
    try {
      const url = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}/in`;
      const run = await runLogged(
        t,
        [{ id: 'ws', type: 'ws', configuration: { server: url, headers: { Authorization: 'Bearer x' } } }],
        [],
        { a: 1 },
      );
      assert.deepEqual(run.node('ws').relationTypes, ['Success'], run.node('ws').err);
      await waitFor(() => frames.length === 1, 'the WebSocket frame');
      assert.equal(frames[0], '{"a":1}');
      assert.equal(authorization, 'Bearer x');
    } finally {
      for (const client of wss.clients) client.terminate();
      wss.close();
    }
  });
});

/** A loopback port nothing listens on (taken, then given back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  server.close();
  await once(server, 'close');
  return port;
}

describe("RuleGo's cases for the messaging nodes: text data, and a peer that is not there", () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp({ config: { engine: { rest_allowed_hosts: ['127.0.0.1'] } } });
  });
  after(() => t.close());

  it('mqttClient publishes text data as it is', async () => {
    const topic = `rulego/text/${Date.now()}`;
    const subscriber = await mqtt.connectAsync('mqtt://127.0.0.1:1883');
    const received: string[] = [];
    subscriber.on('message', (_name, payload) => received.push(payload.toString('utf8')));
    await subscriber.subscribeAsync(topic, { qos: 1 });
    try {
      const run = await runLogged(
        t,
        [{ id: 'pub', type: 'mqttClient', configuration: { server: '127.0.0.1:1883', topic, qos: 1 } }],
        [],
        'AA',
        { msgType: 'ACTIVITY_EVENT1', query: { productType: 'test' } },
      );
      assert.deepEqual(run.node('pub').relationTypes, ['Success'], run.node('pub').err);
      await waitFor(() => received.length > 0, 'the MQTT message');
      assert.equal(received[0], 'AA');
    } finally {
      await subscriber.endAsync();
    }
  });

  it('mqttClient, net, ws and sendEmail to a port nothing listens on: Failure', async () => {
    const port = await closedPort();
    const run = await runLogged(
      t,
      [
        {
          id: 'pub',
          type: 'mqttClient',
          configuration: { server: `127.0.0.1:${port}`, topic: '/device/msg' },
        },
        { id: 'tcp', type: 'net', configuration: { protocol: 'tcp', server: `127.0.0.1:${port}` } },
        { id: 'ws', type: 'ws', configuration: { server: `ws://127.0.0.1:${port}` } },
        {
          id: 'mail',
          type: 'sendEmail',
          configuration: {
            smtpHost: '127.0.0.1',
            smtpPort: port,
            email: { from: 'a@example.com', to: 'b@example.com', subject: 's', body: 'b' },
          },
        },
      ],
      [
        ['pub', 'Failure', 'tcp'],
        ['tcp', 'Failure', 'ws'],
        ['ws', 'Failure', 'mail'],
      ],
      { temperature: 60 },
    );
    assert.deepEqual(run.relations(), [
      ['pub', ['Failure']],
      ['tcp', ['Failure']],
      ['ws', ['Failure']],
      ['mail', ['Failure']],
    ]);
    for (const id of ['pub', 'tcp', 'ws', 'mail']) assert.ok(run.node(id).err, id);
  });
});

describe('the network guard refuses loopback for the messaging nodes by default', () => {
  let t: TestApp;
  before(async () => {
    t = await createTestApp();
  });
  after(() => t.close());

  it('mqttClient, net and ws fail with the refusal', async () => {
    const run = await runLogged(
      t,
      [
        { id: 'pub', type: 'mqttClient', configuration: { server: 'tcp://127.0.0.1:1883', topic: 'x' } },
        { id: 'tcp', type: 'net', configuration: { server: 'localhost:9' } },
        { id: 'ws', type: 'ws', configuration: { server: 'ws://127.0.0.1:9/' } },
      ],
      [
        ['pub', 'Failure', 'tcp'],
        ['tcp', 'Failure', 'ws'],
      ],
      { a: 1 },
    );
    for (const id of ['pub', 'tcp', 'ws']) {
      assert.match(run.node(id).err ?? '', /private, loopback and link-local addresses are not allowed/, id);
    }
  });
});
