import type { Knex } from 'knex';
import type { AppConfig } from '../../../core/kernel/config.js';
import type { PasswordHasher } from '../../../core/security/passwords.js';
import type { RateLimiter } from '../../../core/http/rate-limit.js';
import type { AuditWriter } from '../../../core/audit/audit-writer.js';
import type { Outbox } from '../../../core/bus/outbox.js';
import type { AccountsOptions } from '../options.js';
import type { PlanCatalog } from '../plans.js';
import type { AccountMail } from './account-mail.js';
import type { AuthContextBuilder } from './auth-context.js';
import type { EmailTokens } from './email-tokens.js';
import type { SessionService } from './session-service.js';
import type { Credentials } from './access.js';
import type { LoginThrottle } from './login-throttle.js';

/** The container entries the accounts services are built from (awilix PROXY injection). */
export interface AccountsDeps {
  db: Knex;
  config: AppConfig;
  passwords: PasswordHasher;
  rateLimiter: RateLimiter;
  audit: AuditWriter;
  outbox: Outbox;
  accountsOptions: AccountsOptions;
  planCatalog: PlanCatalog;
  accountMail: AccountMail;
  authContextBuilder: AuthContextBuilder;
  emailTokens: EmailTokens;
  sessionService: SessionService;
  credentials: Credentials;
  loginThrottle: LoginThrottle;
}
