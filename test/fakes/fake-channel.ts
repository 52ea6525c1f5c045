// An in-memory chat platform and its adapter, for the channel manager's tests and the contract
// suite: users "send" messages, the adapter holds a long connection to the hub, and everything the
// bot sends or edits is recorded per chat.
import { AppError } from '../../src/core/errors.ts';
import type { Platform } from '../../src/config/schema.ts';
import {
  apiBaseField,
  platformAccount,
  secretField,
  textField,
  type AccountOf,
} from '../../src/channels/account-schema.ts';
import type {
  ChannelAccount,
  ChannelAdapter,
  ConnectionLink,
  InboundMessage,
  OutboundMedia,
  ReplyStream,
  SendResult,
  SendTextOptions,
} from '../../src/channels/types.ts';

export interface FakeSent {
  chatId: string;
  kind: 'text' | 'image' | 'file';
  /** The text as last shown (after every edit), or the media's file name or reference. */
  content: string;
  edits: number;
  replyTo?: string | undefined;
  threadId?: string | undefined;
}

interface Connection {
  accountId: string;
  link: ConnectionLink;
  end: (error?: Error) => void;
}

/** The platform side: credentials, live connections, and what the bot sent. */
export class FakeChatHub {
  /** The secret an account must present; changing it makes old connections fail to reconnect. */
  secret = 'fake-secret-0001';
  readonly sent: FakeSent[] = [];
  connects = 0;
  private readonly connections = new Set<Connection>();
  private readonly waiters: Array<() => void> = [];
  private nextId = 1;

  get live(): number {
    return this.connections.size;
  }

  /** A user's message, delivered over every live connection of the account (as a platform would). */
  send(
    accountId: string,
    message: Omit<InboundMessage, 'platform' | 'accountId'> & { platform: Platform },
  ): void {
    for (const connection of this.connections) {
      if (connection.accountId === accountId) connection.link.deliver({ ...message, accountId });
    }
  }

  /** The platform drops every connection (a restart). */
  dropAll(): void {
    for (const connection of [...this.connections])
      connection.end(new Error('connection reset by the platform'));
  }

  record(entry: Omit<FakeSent, 'edits'>): FakeSent {
    const sent = { ...entry, edits: 0 };
    this.sent.push(sent);
    this.notify();
    return sent;
  }

  newId(): string {
    return `m${this.nextId++}`;
  }

  notify(): void {
    for (const waiter of this.waiters.splice(0)) waiter();
  }

  /** Resolves when `check` holds, re-checked at every change; rejects after `timeoutMs`. */
  async until(check: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 25);
      });
    }
  }

  attach(accountId: string, secret: string | undefined, link: ConnectionLink): Promise<void> {
    this.connects += 1;
    if (secret !== this.secret) return Promise.reject(new AppError('unauthenticated', 'invalid credentials'));
    return new Promise<void>((resolve, reject) => {
      const connection: Connection = {
        accountId,
        link,
        end: (error) => {
          this.connections.delete(connection);
          this.notify();
          if (error) reject(error);
          else resolve();
        },
      };
      this.connections.add(connection);
      link.signal.addEventListener('abort', () => connection.end(), { once: true });
      link.connected();
      this.notify();
    });
  }
}

/** The fake's accounts: a secret the hub checks, as any platform's (it stands in for one). */
function fakeAccountFields(platform: Platform) {
  return platformAccount({
    platform,
    label: `Fake ${platform}`,
    intro: 'An in-memory chat platform.',
    fields: {
      app_id: textField({ label: 'App ID' }),
      app_secret: secretField({ label: 'Secret', required: true }),
      api_base: apiBaseField(),
    },
  });
}
type FakeAccount = AccountOf<ReturnType<typeof fakeAccountFields>>;

export class FakeChannelAdapter implements ChannelAdapter<FakeAccount> {
  readonly capabilities = { editMessage: true, typing: false, images: true, files: true };
  readonly maxUploadBytes = { image: 1024 * 1024, file: 4 * 1024 * 1024 };
  readonly editIntervalMs = 10;

  constructor(
    readonly platform: Platform,
    readonly hub: FakeChatHub,
  ) {
    this.accountFields = fakeAccountFields(platform);
  }

  readonly accountFields: ReturnType<typeof fakeAccountFields>;

  inboundStyle(): 'long-connection' {
    return 'long-connection';
  }

  connect(account: ChannelAccount<FakeAccount>, link: ConnectionLink): Promise<void> {
    return this.hub.attach(account.id, account.config.app_secret, link);
  }

  async sendText(
    _account: ChannelAccount<FakeAccount>,
    chatId: string,
    text: string,
    options?: SendTextOptions,
  ): Promise<SendResult> {
    this.hub.record({
      chatId,
      kind: 'text',
      content: text,
      replyTo: options?.replyTo,
      threadId: options?.threadId,
    });
    return { messageId: this.hub.newId() };
  }

  async sendImage(
    _account: ChannelAccount<FakeAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    this.hub.record({ chatId, kind: 'image', content: media.kind === 'upload' ? media.fileName : media.id });
    return { messageId: this.hub.newId() };
  }

  async sendFile(
    _account: ChannelAccount<FakeAccount>,
    chatId: string,
    media: OutboundMedia,
  ): Promise<SendResult> {
    this.hub.record({ chatId, kind: 'file', content: media.kind === 'upload' ? media.fileName : media.id });
    return { messageId: this.hub.newId() };
  }

  async beginReply(_account: ChannelAccount<FakeAccount>, message: InboundMessage): Promise<ReplyStream> {
    const sent = this.hub.record({
      chatId: message.chatId,
      kind: 'text',
      content: 'Thinking…',
      replyTo: message.messageId,
    });
    return {
      update: async (text) => {
        sent.content = text;
        sent.edits += 1;
        this.hub.notify();
      },
      finish: async (text) => {
        sent.content = text;
        sent.edits += 1;
        this.hub.notify();
      },
    };
  }
}
