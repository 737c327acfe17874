import type { InboxOptions } from './options.js';
import type { ChannelService } from './services/channels.js';
import type { DomainService } from './services/domains.js';
import type { InboundPipeline } from './services/pipeline.js';

/** What the inbox plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    inboxOptions: InboxOptions;
    inboxPipeline: InboundPipeline;
    channelService: ChannelService;
    domainService: DomainService;
  }
}
