// RuleGo's mqttClient, sendEmail, net and ws nodes (components/external): each sends the message out
// over a connection that opens on the first message (to an address the network guard checked) and
// closes with the chain. Success once the message is handed over, Failure with the error otherwise.
import { createSocket } from 'node:dgram';
import { connect as tcpConnect, type Socket } from 'node:net';
import { z } from 'zod';
import { compileExprTemplate } from '../expr-template.ts';
import type { NodeContext, NodeFactoryContext, RuleMessage } from '../types.ts';
import { commaList, flag, optionalText, requiredText, seconds, wholeNumberIn } from './config-fields.ts';
import { lazyConnection, type LazyConnection } from './lazy-connection.ts';
import { guardedAddress, policyOf } from './network-guard.ts';
import { nodeEnvOf } from './node-env.ts';
import { defineNode } from './define-node.ts';

/** Renders `${...}` in a config text with the message's environment (metadata keys also bare). */
function renderer(context: NodeFactoryContext) {
  const env = nodeEnvOf(context, true);
  return (text: string, where: string) => {
    const template = compileExprTemplate(text, `node "${context.nodeId}" ${where}`);
    return (message: RuleMessage, nodeContext: NodeContext) =>
      template.isStatic ? text : template.render(env(message, nodeContext));
  };
}

/** host:port (or scheme://host:port) split; the port defaults. */
function hostPort(server: string, defaultPort: number): { host: string; port: number } {
  const bare = server.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
  const match = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(bare);
  if (!match) throw new Error(`server "${server}" is not host:port`);
  return { host: (match[1] ?? '').replace(/^\[|\]$/g, ''), port: match[2] ? Number(match[2]) : defaultPort };
}

/**
 * One connection to host:port opened on demand, once the network guard passed the address it
 * resolves to; a failed open is retried by the next message.
 */
function lazy<T>(
  context: NodeFactoryContext,
  target: { host: string; port: number },
  open: (address: string) => Promise<T>,
  close: (value: T) => void,
): LazyConnection<T> {
  return lazyConnection(
    async () => open(await guardedAddress(policyOf(context.services), target.host, target.port)),
    close,
  );
}

const mqttSchema = z.object({
  server: requiredText('Server', 'The broker: tcp://host:1883 (or mqtt://).'),
  username: optionalText('User', 'Broker user name.'),
  password: optionalText('Password', 'Broker password.'),
  topic: requiredText('Topic', 'Where to publish; ${metadata.key} and ${msg.key} are replaced.'),
  qos: wholeNumberIn(0, 2, 0, 'QoS', '0, 1 or 2.'),
  cleanSession: z
    .boolean()
    .default(true)
    .meta({ label: 'Clean session', description: 'Start without the previous session.' }),
  clientId: optionalText('Client id', 'Empty: a random one.'),
  maxReconnectInterval: seconds(60, 'Reconnect (s)', 'Wait between reconnects.'),
});

export const mqttClientNode = defineNode(mqttSchema, {
  type: 'mqttClient',
  label: 'MQTT publish',
  description: 'Publishes the message data to an MQTT topic.',
  category: 'external',
  relations: ['Success', 'Failure'],
  create(config, context) {
    const topic = renderer(context)(config.topic, 'topic');
    const { host, port } = hostPort(config.server, 1883);
    const tls = /^(ssl|tls|mqtts):\/\//i.test(config.server);
    const client = lazy(
      context,
      { host, port },
      async (address) => {
        const mqtt = await import('mqtt');
        return mqtt.connectAsync({
          protocol: tls ? 'mqtts' : 'mqtt',
          host: address,
          port,
          ...(tls ? { servername: host } : {}),
          ...(config.username ? { username: config.username, password: config.password } : {}),
          ...(config.clientId ? { clientId: config.clientId } : {}),
          clean: config.cleanSession,
          reconnectPeriod: Math.max(1, config.maxReconnectInterval) * 1000,
          connectTimeout: 10_000,
        });
      },
      (connection) => void connection.endAsync(true).catch(() => undefined),
    );
    return {
      async process(message, nodeContext) {
        const connection = await client.get();
        await connection.publishAsync(topic(message, nodeContext), message.data, {
          qos: config.qos as 0 | 1 | 2,
        });
        return [{ relation: 'Success', message }];
      },
      destroy: () => client.close(),
    };
  },
});

const emailSchema = z.object({
  smtpHost: requiredText('SMTP host', 'The mail server.'),
  smtpPort: wholeNumberIn(1, 65535, 25, 'SMTP port', 'Its port; default 25.'),
  username: optionalText('User', 'SMTP user; empty sends without logging in.'),
  password: optionalText('Password', 'SMTP password.'),
  enableTls: flag('TLS', 'Connect with TLS (port 465); off still upgrades with STARTTLS when offered.'),
  connectTimeout: seconds(10, 'Connect timeout (s)', 'Seconds to wait for the server.'),
  email: z
    .object({
      from: requiredText('From', 'Sender address.'),
      to: requiredText('To', 'Recipients, comma-separated.'),
      cc: optionalText('Cc', 'Copies, comma-separated.'),
      bcc: optionalText('Bcc', 'Blind copies, comma-separated.'),
      subject: optionalText('Subject', '${metadata.key} and ${msg.key} are replaced.'),
      body: optionalText('Body', 'HTML body; ${metadata.key} and ${msg.key} are replaced.'),
    })
    .meta({ label: 'Email', description: 'The message to send.' }),
});

export const sendEmailNode = defineNode(emailSchema, {
  type: 'sendEmail',
  label: 'Send email',
  description: 'Sends an email over SMTP; subject and body take ${...} from the message.',
  category: 'external',
  relations: ['Success', 'Failure'],
  create(config, context) {
    const render = renderer(context);
    const subject = render(config.email.subject, 'subject');
    const body = render(config.email.body, 'body');
    return {
      async process(message, nodeContext) {
        const address = await guardedAddress(policyOf(context.services), config.smtpHost, config.smtpPort);
        const { default: nodemailer } = await import('nodemailer');
        const transport = nodemailer.createTransport({
          host: address,
          port: config.smtpPort,
          secure: config.enableTls,
          tls: { servername: config.smtpHost },
          connectionTimeout: config.connectTimeout * 1000,
          ...(config.username ? { auth: { user: config.username, pass: config.password } } : {}),
        });
        try {
          await transport.sendMail({
            from: config.email.from,
            to: commaList(config.email.to),
            cc: commaList(config.email.cc),
            bcc: commaList(config.email.bcc),
            subject: subject(message, nodeContext),
            html: body(message, nodeContext),
          });
        } finally {
          transport.close();
        }
        return [{ relation: 'Success', message }];
      },
    };
  },
});

const netSchema = z.object({
  protocol: z.enum(['tcp', 'udp']).default('tcp').meta({ label: 'Protocol', description: 'tcp or udp.' }),
  server: requiredText('Server', 'host:port to send to.'),
  connectTimeout: seconds(60, 'Connect timeout (s)', 'Seconds to wait for a TCP connection.'),
  heartbeatInterval: seconds(60, 'Heartbeat (s)', 'Kept for RuleGo chains (TCP keep-alive is on).'),
});

export const netNode = defineNode(netSchema, {
  type: 'net',
  label: 'TCP/UDP send',
  description: 'Sends the data over TCP or UDP: binary data as it is, text and JSON with a newline after it.',
  category: 'external',
  relations: ['Success', 'Failure'],
  create(config, context) {
    const { host, port } = hostPort(config.server, 0);
    if (port === 0) throw new Error(`server "${config.server}" needs a port`);
    const policy = policyOf(context.services);
    const tcp = lazy(
      context,
      { host, port },
      (address) =>
        new Promise<Socket>((resolve, reject) => {
          const socket = tcpConnect({
            host: address,
            port,
            timeout: config.connectTimeout * 1000 || undefined,
          });
          socket.setKeepAlive(true);
          socket.once('connect', () => {
            socket.setTimeout(0);
            resolve(socket);
          });
          socket.once('timeout', () => socket.destroy(new Error('connect timeout')));
          socket.once('error', reject);
          socket.on('close', () => tcp.reset());
          socket.on('data', () => undefined);
        }),
      (socket) => socket.destroy(),
    );
    const payload = (message: RuleMessage) =>
      message.dataType === 'BINARY' ? Buffer.from(message.data, 'binary') : Buffer.from(`${message.data}\n`);
    return {
      async process(message) {
        const bytes = payload(message);
        if (config.protocol === 'udp') {
          const address = await guardedAddress(policy, host, port);
          const socket = createSocket(address.includes(':') ? 'udp6' : 'udp4');
          try {
            await new Promise<void>((resolve, reject) =>
              socket.send(bytes, port, address, (error) => (error ? reject(error) : resolve())),
            );
          } finally {
            socket.close();
          }
        } else {
          const socket = await tcp.get();
          await new Promise<void>((resolve, reject) =>
            socket.write(bytes, (error) => (error ? reject(error) : resolve())),
          );
        }
        return [{ relation: 'Success', message }];
      },
      destroy: () => tcp.close(),
    };
  },
});

const wsSchema = z.object({
  server: requiredText('Server', 'ws://host:port/path or wss://...'),
  headers: z
    .record(z.string(), z.string())
    .default({})
    .meta({ label: 'Headers', description: 'Handshake headers, e.g. Authorization.' }),
  subprotocol: optionalText('Subprotocol', 'Sec-WebSocket-Protocol; empty for none.'),
  connectTimeout: seconds(10, 'Connect timeout (s)', 'Handshake time limit.'),
  messageType: z
    .enum(['text', 'binary'])
    .default('text')
    .meta({ label: 'Frame type', description: 'text or binary.' }),
});

export const wsNode = defineNode(wsSchema, {
  type: 'ws',
  label: 'WebSocket send',
  description: 'Sends the data as a WebSocket frame to a server.',
  category: 'external',
  relations: ['Success', 'Failure'],
  create(config, context) {
    let url: URL;
    try {
      url = new URL(config.server);
    } catch {
      throw new Error(`server "${config.server}" is not a ws:// or wss:// URL`);
    }
    if (url.protocol !== 'ws:' && url.protocol !== 'wss:')
      throw new Error(`server "${config.server}" is not a ws:// or wss:// URL`);
    const port = Number(url.port || (url.protocol === 'wss:' ? 443 : 80));
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const client = lazy(
      context,
      { host, port },
      async (address) => {
        const { WebSocket } = await import('ws');
        const socket = new WebSocket(url, config.subprotocol ? [config.subprotocol] : [], {
          headers: config.headers,
          handshakeTimeout: config.connectTimeout * 1000 || 10_000,
          lookup: (
            _name: string,
            _options: unknown,
            callback: (error: null, address: string, family: number) => void,
          ) => callback(null, address, address.includes(':') ? 6 : 4),
          ...(url.protocol === 'wss:' ? { servername: host } : {}),
        } as ConstructorParameters<typeof WebSocket>[2]);
        await new Promise<void>((resolve, reject) => {
          socket.once('open', () => resolve());
          socket.once('error', reject);
        });
        socket.on('error', () => undefined);
        socket.on('close', () => client.reset());
        return socket;
      },
      (socket) => socket.close(),
    );
    return {
      async process(message) {
        const socket = await client.get();
        const data = config.messageType === 'binary' ? Buffer.from(message.data) : message.data;
        await new Promise<void>((resolve, reject) =>
          socket.send(data, (error) => (error ? reject(error) : resolve())),
        );
        return [{ relation: 'Success', message }];
      },
      destroy: () => client.close(),
    };
  },
});
