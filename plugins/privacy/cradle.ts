import type { PrivacyOptions } from './options.js';
import type { ClosureService } from './services/closure.js';
import type { ErasureService } from './services/erasure.js';
import type { ExportService } from './services/export.js';
import type { PersonalDataRegistry } from './services/registry.js';
import type { TicketDeletionService } from './services/ticket-deletion.js';

/** What the privacy plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    personalData: PersonalDataRegistry;
    privacyOptions: PrivacyOptions;
    privacyClosure: ClosureService;
    privacyErasure: ErasureService;
    privacyTickets: TicketDeletionService;
    privacyExports: ExportService;
  }
}
