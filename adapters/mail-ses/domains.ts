/**
 * SES email identities as DomainStates: Easy DKIM (three CNAMEs), a custom MAIL FROM domain for
 * sending (MX + SPF), and the inbound MX for receiving.
 */
import type { GetEmailIdentityResponse } from '@aws-sdk/client-sesv2';
import type {
  DnsRecord,
  DnsRecordStatus,
  DomainPurpose,
  DomainState,
  DomainStatus,
} from '../../core/contracts/index.js';

/** SES status (VerificationStatus, DkimStatus, MailFromDomainStatus) → spec status. */
export function recordStatus(status: string | undefined): DnsRecordStatus {
  switch (status) {
    case 'SUCCESS':
      return 'verified';
    case 'FAILED':
      return 'failed';
    case 'TEMPORARY_FAILURE':
      return 'temporary_failure';
    case 'NOT_STARTED':
      return 'not_started';
    default:
      return 'pending';
  }
}

export interface IdentityContext {
  domain: string;
  purpose: DomainPurpose;
  region: string;
  /** `bounce` → MAIL FROM domain `bounce.<domain>`. */
  mailFromSubdomain: string;
}

export function mailFromDomain(ctx: Pick<IdentityContext, 'domain' | 'mailFromSubdomain'>): string {
  return `${ctx.mailFromSubdomain}.${ctx.domain}`;
}

/** The DomainState of an SES identity for one purpose. */
export function identityState(identity: GetEmailIdentityResponse, ctx: IdentityContext): DomainState {
  const { domain, purpose, region } = ctx;
  const dkim = identity.DkimAttributes;
  const dkimStatus = recordStatus(dkim?.Status);
  const identityStatus = recordStatus(identity.VerificationStatus ?? dkim?.Status);
  const records: DnsRecord[] = (dkim?.Tokens ?? []).map((token) => ({
    purpose,
    record: 'dkim',
    type: 'CNAME',
    name: `${token}._domainkey.${domain}`,
    value: `${token}.dkim.amazonses.com`,
    status: dkimStatus,
  }));

  let status: DomainStatus = identityStatus;
  let error: DomainState['error'];
  if (purpose === 'sending') {
    const mailFrom = identity.MailFromAttributes;
    const mailFromStatus = recordStatus(mailFrom?.MailFromDomainStatus ?? 'PENDING');
    const name = mailFrom?.MailFromDomain || mailFromDomain(ctx);
    records.push(
      {
        purpose,
        record: 'return_path',
        type: 'MX',
        name,
        value: `feedback-smtp.${region}.amazonses.com`,
        priority: 10,
        status: mailFromStatus,
      },
      { purpose, record: 'spf', type: 'TXT', name, value: 'v=spf1 include:amazonses.com ~all', status: mailFromStatus },
    );
    if (identityStatus === 'verified' && mailFromStatus !== 'verified') {
      // DKIM works (mail goes out signed); only the custom MAIL FROM is not there yet.
      status = mailFromStatus === 'failed' ? 'partially_failed' : 'partially_verified';
      if (mailFromStatus === 'failed')
        error = { code: 'mail_from_failed', message: `the MX and SPF records of ${name} were not found or are wrong` };
    }
  } else {
    // SES does not check the MX record; the domain's identity is what it verifies.
    records.push({
      purpose,
      record: 'mx',
      type: 'MX',
      name: domain,
      value: `inbound-smtp.${region}.amazonaws.com`,
      priority: 10,
    });
  }
  if (status === 'failed' || status === 'temporary_failure') {
    const reason = identity.VerificationInfo?.ErrorType;
    error = {
      code: status === 'failed' ? 'verification_failed' : 'verification_temporary_failure',
      message: reason
        ? `SES could not verify ${domain}: ${reason}`
        : `SES could not verify the DKIM records of ${domain}`,
    };
  }
  return { domain, purpose, status, records, ...(error ? { error } : {}) };
}
