import type { WidgetIdentities } from './services/identities.js';
import type { WidgetIntake } from './services/intake.js';
import type { WidgetSettingsService } from './services/settings.js';

/** What the widget plugin puts in the container (core/kernel/cradle.ts). */
declare module '../../core/kernel/cradle.js' {
  interface Cradle {
    widgetIntake: WidgetIntake;
    widgetIdentities: WidgetIdentities;
    widgetSettings: WidgetSettingsService;
  }
}
