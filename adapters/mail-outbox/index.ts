import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import Joi from 'joi';
import {
  AdapterError,
  adapterModule,
  type AdapterDeps,
  type OutgoingEmail,
  type SendResult,
} from '../../core/contracts/index.js';
import { composeMime, linksIn } from '../mail-common/mime.js';
import {
  ConfiguredDomainsChannelAdapter,
  configuredDomainsOptionKeys,
  type ConfiguredDomainsOptions,
} from '../mail-common/configured-domains.js';

export interface OutboxOptions extends ConfiguredDomainsOptions {
  /** Directory of the .eml files. Default `<dataDir>/outbox`; none (memory only) when dataDir is `:memory:`. */
  dir?: string;
  /** Messages kept in memory for `messages`/`waitFor` (oldest dropped first). */
  keep: number;
}

/** One message the outbox took. */
export interface OutboxEntry {
  providerMessageId: string;
  /** Message-ID header, with angle brackets. */
  messageId: string;
  from: string;
  /** To and Cc addresses. */
  to: string[];
  subject: string;
  /** The .eml bytes. */
  raw: Buffer;
  /** Where the .eml was written; null in memory-only mode. */
  path: string | null;
  /** Links in the text part, as logged. */
  links: string[];
  sentAt: Date;
  email: OutgoingEmail;
}

interface Log {
  info(obj: object, msg?: string): void;
}

/**
 * The offline default: every message becomes an RFC 5322 .eml file under `<dataDir>/outbox/`
 * (open it with any mail client) and a log line with its path and links. With dataDir
 * `:memory:` nothing touches the disk; `messages` and `waitFor` give tests what was sent.
 */
export class OutboxChannelAdapter extends ConfiguredDomainsChannelAdapter<OutboxOptions> {
  static override identifier = 'mail-outbox';
  static override optionsSchema = Joi.object<OutboxOptions>({
    ...configuredDomainsOptionKeys,
    dir: Joi.string(),
    keep: Joi.number().integer().min(0).max(100000).default(1000),
  });

  /** Directory of the .eml files, or null in memory-only mode. */
  readonly dir: string | null;
  private readonly entries: OutboxEntry[] = [];
  private readonly events = new EventEmitter();

  constructor(options: OutboxOptions, deps?: AdapterDeps) {
    super(options, deps);
    const dataDir = (deps?.config as { dataDir?: string } | undefined)?.dataDir;
    this.dir = options.dir
      ? resolve(options.dir)
      : dataDir && dataDir !== ':memory:'
        ? resolve(dataDir, 'outbox')
        : null;
    this.events.setMaxListeners(0);
  }

  /** What was sent, oldest first (at most `keep`). */
  get messages(): readonly OutboxEntry[] {
    return this.entries;
  }

  /** The messages to one address (To or Cc), oldest first. */
  sentTo(address: string): OutboxEntry[] {
    const wanted = address.toLowerCase();
    return this.entries.filter((e) => e.to.some((a) => a.toLowerCase() === wanted));
  }

  /** Resolves with the first message (already sent or to come) that `match` accepts. */
  waitFor(match: (entry: OutboxEntry) => boolean, timeoutMs = 5000): Promise<OutboxEntry> {
    const found = this.entries.find(match);
    if (found) return Promise.resolve(found);
    return new Promise((resolvePromise, reject) => {
      const onSent = (entry: OutboxEntry) => {
        if (!match(entry)) return;
        cleanup();
        resolvePromise(entry);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`mail-outbox: no matching message within ${timeoutMs} ms (${this.entries.length} sent)`));
      }, timeoutMs);
      const cleanup = () => {
        clearTimeout(timer);
        this.events.off('sent', onSent);
      };
      this.events.on('sent', onSent);
    });
  }

  /** Forgets the messages kept in memory (files stay). */
  clear(): void {
    this.entries.length = 0;
  }

  async send(email: OutgoingEmail): Promise<SendResult> {
    const sentAt = new Date();
    const { raw, envelope } = await composeMime(email, sentAt);
    const providerMessageId = `outbox-${randomBytes(12).toString('hex')}`;
    let path: string | null = null;
    if (this.dir) {
      path = join(this.dir, `${sentAt.toISOString().replace(/[:.]/g, '-')}-${providerMessageId}.eml`);
      try {
        await mkdir(this.dir, { recursive: true });
        await writeFile(path, raw, { mode: 0o600 });
      } catch (err) {
        throw new AdapterError('outbox_unwritable', `mail-outbox cannot write ${path}: ${(err as Error).message}`, {
          retryable: true,
          cause: err,
        });
      }
    }
    const links = linksIn(email.text);
    const entry: OutboxEntry = {
      providerMessageId,
      messageId: email.messageId,
      from: envelope.from,
      to: envelope.to,
      subject: email.subject,
      raw,
      path,
      links,
      sentAt,
      email,
    };
    this.entries.push(entry);
    if (this.entries.length > this.options.keep) this.entries.splice(0, this.entries.length - this.options.keep);
    (this.deps.log as Log | undefined)?.info?.(
      { adapter: this.identifier, path, to: envelope.to, subject: email.subject, links },
      path ? `mail written to ${path}` : 'mail kept in memory (dataDir is :memory:)',
    );
    this.events.emit('sent', entry);
    return { providerMessageId, accepted: envelope.to };
  }
}

export default adapterModule('channel', OutboxChannelAdapter);
