import type { SIGN_IN_ERROR_CODES } from '../../../core/contracts/index.js';

/** Why a browser sign-in failed; the dashboard's sign-in page shows `?sso_error=<code>`. */
export type SsoFailureCode =
  | (typeof SIGN_IN_ERROR_CODES)[number]
  | 'sign_in_expired'
  | 'assertion_replayed'
  | 'domain_not_allowed'
  | 'email_taken'
  | 'email_not_verified'
  | 'not_provisioned'
  | 'account_disabled'
  | 'connection_not_found';

export class SsoFailure extends Error {
  constructor(
    readonly code: SsoFailureCode,
    message: string,
  ) {
    super(message);
  }
}
