import { asValue } from 'awilix';
import { cradleView, optional, selected, type Cradle } from '../../core/kernel/cradle.js';
import { definePlugin } from '../../core/kernel/plugin.js';
import { DnsLookup } from '../../core/net/dns.js';
import { inboxOptionsSchema, type InboxOptions } from './options.js';
import { channelRoutes } from './routes/channels.js';
import { domainRoutes } from './routes/domains.js';
import { webhookRoutes } from './routes/webhooks.js';
import { ChannelService, defaultSender } from './services/channels.js';
import { defaultBrandDirectory, type InboxDeps } from './services/deps.js';
import { DomainService } from './services/domains.js';
import { InboundPipeline } from './services/pipeline.js';
import { INBOX_MAIL_TEMPLATES } from './services/templates.js';

const DAY = 24 * 60 * 60 * 1000;

/**
 * The email inbox: the inbound pipeline behind POST /v1/webhooks/email/{provider} (section
 * `email-webhooks`), the channel of each workspace (`channels`) and the sending and receiving
 * domains registered with the email provider (`domains`). See docs/inbox.md.
 *
 * Container entries for other plugins: `inboxPipeline`, `channelService` (with
 * `sendingOf(trx, workspace)`: how a workspace's replies leave), `domainService`. It registers a
 * `whiteLabelGuard` that sends replies from a verified custom sending domain; the brand plugin
 * replaces it with its own (which can call `channelService.sendingOf`). It reads a
 * `brandDirectory` (see services/deps.ts) when the brand plugin provides one.
 */
export default definePlugin<InboxOptions>({
  name: 'inbox',
  version: '1.0.0',
  requires: ['accounts', 'workspaces', 'mail', 'tickets'],
  uses: ['channel'],
  options: inboxOptionsSchema,
  register(ctx) {
    const { container, config, options } = ctx;
    const dns = new DnsLookup({ servers: options.dnsServers, timeoutMs: options.dnsTimeoutMs });
    const ownSenders = [defaultSender({ config }).address];
    const deps = cradleView<InboxDeps>(container, {
      db: 'db',
      config: () => config,
      options: () => options,
      outbox: 'outbox',
      audit: 'audit',
      rateLimiter: 'rateLimiter',
      dns: () => dns,
      workspaces: 'workspaceService',
      tickets: 'ticketService',
      mailer: 'mailer',
      channelAdapter: () => selected(container.cradle.channelAdapter, 'channel'),
      planCatalog: 'planCatalog',
      planLimits: () => optional(container, 'planLimits') ?? null,
      brandDirectory: () => optional(container, 'brandDirectory') ?? defaultBrandDirectory,
      ownSenders: () => ownSenders,
    });

    const channels = new ChannelService(deps);
    const domains = new DomainService(deps);
    const pipeline = new InboundPipeline(deps);
    // Replies of a workspace with a verified custom sending domain leave from it.
    const guard: Cradle['whiteLabelGuard'] = {
      async check({ trx, orgId, workspace }) {
        const ws = await deps.workspaces.get(orgId, workspace.id, trx);
        const sending = await channels.sendingOf(trx, ws);
        return sending.sender ? { allowed: true, from: sending.sender } : { allowed: true };
      },
    };
    ctx.provide({
      inboxOptions: asValue(options),
      inboxPipeline: asValue(pipeline),
      channelService: asValue(channels),
      domainService: asValue(domains),
      whiteLabelGuard: asValue(guard),
    });
    container.resolve('mailer').registerTemplates(INBOX_MAIL_TEMPLATES);

    ctx.routes([
      ...webhookRoutes(() => pipeline, {
        maxBytes: options.maxMessageBytes,
        providers: () => deps.channelAdapter.inboundProviders,
      }),
      ...channelRoutes(() => channels),
      ...domainRoutes(() => domains, container.cradle.accountSchemas.Ok),
    ]);

    // Quarantined messages are kept for a while (to be released), then only their log row stays.
    ctx.schedule('purge', { everyMs: DAY / 4 }, async () => {
      const db = deps.db;
      await db('inbox_emails')
        .whereNotNull('raw')
        .where('received_at', '<', new Date(Date.now() - options.quarantineRetentionDays * DAY))
        .update({ raw: null });
      await db('inbox_emails')
        .where('received_at', '<', new Date(Date.now() - options.logRetentionDays * DAY))
        .delete();
    });
  },
});
