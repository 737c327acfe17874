import type { BrandOptions } from './options.js';
import type { BrandDirectoryService } from './services/directory.js';
import type { MailBrandingService } from './services/mail-branding.js';
import type { BrandService } from './services/profiles.js';
import type { StatusPageBrandingService } from './services/surfaces.js';

/** What the brand plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    brandOptions: BrandOptions;
    brandService: BrandService;
    brandDirectory: BrandDirectoryService;
    statusPageBranding: StatusPageBrandingService;
    mailBranding: MailBrandingService;
  }
}
