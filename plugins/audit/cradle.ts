import type { AuditOptions } from './options.js';
import type { AuditLogService } from './services/audit-log.js';
import type { StreamDelivery } from './services/delivery.js';
import type { StreamSettingsService } from './services/stream-settings.js';

/** What the audit plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    auditOptions: AuditOptions;
    auditLog: AuditLogService;
    auditStreamDelivery: StreamDelivery;
    auditStreamSettings: StreamSettingsService;
  }
}
