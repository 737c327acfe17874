import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { sessionFrom, setCookies } from '../../../test/helpers/accounts.js';
import type { Answer, ApiError } from '../../../test/helpers/api-types.js';
import { call, type AppCall, type Call, type Caller } from '../../../test/helpers/call.js';

export { sessionFrom };

/** Any answer of the harness, as the secret scan and the status checks read it. */
export type AnyCall = Call<unknown>;

/** The paths at fault in a refusal of a payload that fails validation (`details.errors` of the error envelope). */
export function refusalErrors(body: Partial<ApiError>): { path: string }[] {
  const errors = body.details?.errors;
  return Array.isArray(errors) ? (errors as { path: string }[]) : [];
}

/** The member acted on. */
type Member = { user: { id: string } };

/**
 * A test service that remembers every answer, so a test can check at its end that no answer
 * ever carried a password hash, a stored token hash or a password.
 */
export interface AccountsHarness {
  app: App;
  answers: AnyCall[];
  /** A request as `who` (null: anonymous), typed from the OpenAPI document; its answer is kept in `answers`. */
  call: AppCall;
  /** POST /v1/auth/login with an email and a password. */
  login(email: string, password: string): Promise<Call<Answer<'POST', '/v1/auth/login'>>>;
  /** PATCH /v1/members/{id} of `member` as `by`: a role or workspace_ids change. */
  patchMember(
    by: Caller,
    member: Member,
    payload: Record<string, unknown>,
  ): Promise<Call<Answer<'PATCH', `/v1/members/${string}`>>>;
  /** DELETE /v1/members/{id} of `member` as `by`. */
  removeMember(by: Caller, member: Member): Promise<Call<Answer<'DELETE', `/v1/members/${string}`>>>;
  /** Mail sent to an address (newest first), optionally of one template. */
  mails(to: string, template?: string): Promise<MailRow[]>;
  /** The token in the link of the newest mail of a template to an address. */
  tokenFromMail(to: string, template: string): Promise<string>;
  /** Every stored hash that must never leave the service. */
  storedSecrets(): Promise<string[]>;
}

/** A row of sessions (the driver answers timestamps as Dates). */
export interface SessionRow {
  id: string;
  user_id: string;
  last_seen_at: Date;
  idle_expires_at: Date;
  absolute_expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

/** A row of email_tokens: an emailed link's token. */
export interface EmailTokenRow {
  id: string;
  user_id: string;
  purpose: string;
  email: string;
  expires_at: Date;
  used_at: Date | null;
  created_at: Date;
}

export interface MailRow {
  id: string;
  org_id: string | null;
  template: string;
  to_address: string;
  subject: string;
  text: string;
  html: string;
  locale: string;
  created_at: Date;
}

export async function harness(t: Test, overrides: Record<string, unknown> = {}): Promise<AccountsHarness> {
  const app = await startTestApp(t, overrides);
  const answers: AnyCall[] = [];
  const h: AccountsHarness = {
    app,
    answers,
    async call(who, method, url, payload, headers) {
      const answer = await call(app, who, method, url, payload, headers);
      answers.push(answer);
      return answer;
    },
    login: (email, password) => h.call(null, 'POST', '/v1/auth/login', { email, password }),
    patchMember: (by, member, payload) => h.call(by, 'PATCH', `/v1/members/${member.user.id}`, payload),
    removeMember: (by, member) => h.call(by, 'DELETE', `/v1/members/${member.user.id}`),
    async mails(to, template) {
      const q = app
        .db('mail_messages')
        .where('to_address', to.toLowerCase())
        .orderBy([
          { column: 'created_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]);
      if (template) q.where('template', template);
      return (await q) as MailRow[];
    },
    async tokenFromMail(to, template) {
      const [mail] = await h.mails(to, template);
      if (!mail) throw new Error(`no ${template} mail to ${to}`);
      const m = /[?&]token=([A-Za-z0-9_-]+)/.exec(mail.text);
      if (!m) throw new Error(`no token link in ${template} mail: ${mail.text}`);
      return m[1];
    },
    async storedSecrets() {
      const out: string[] = [];
      for (const [table, column] of [
        ['users', 'password_hash'],
        ['sessions', 'token_hash'],
        ['api_tokens', 'token_hash'],
        ['invitations', 'token_hash'],
        ['email_tokens', 'token_hash'],
      ] as const) {
        const rows = (await app.db(table).select(column).whereNotNull(column)) as Record<string, string>[];
        out.push(...rows.map((r) => r[column]));
      }
      return out;
    },
  };
  return h;
}

/**
 * Checks that no answer carried a scrypt hash, a stored hash, or one of the given plain
 * secrets (passwords).
 */
export async function assertNoSecretsLeaked(t: Test, h: AccountsHarness, plain: string[] = []): Promise<void> {
  const secrets = await h.storedSecrets();
  t.ok(secrets.length > 0, 'there are stored hashes to look for');
  const leaks: string[] = [];
  for (const a of h.answers) {
    const text = a.payload + JSON.stringify(a.headers);
    if (text.includes('scrypt$')) leaks.push('scrypt$');
    for (const s of secrets) if (text.includes(s)) leaks.push(s.slice(0, 12));
    for (const p of plain) if (text.includes(p)) leaks.push(`password ${p.slice(0, 3)}…`);
  }
  t.same(leaks, [], `none of ${h.answers.length} answers leaks a password, hash or token hash`);
}

/** A caller signed in by a session token alone. */
export const cookieHeader = (token: string): Caller => ({ auth: { headers: { cookie: `pw_session=${token}` } } });

/** A caller holding an API token (no cookie). */
export const bearer = (token: string): Caller => ({ auth: { headers: { authorization: `Bearer ${token}` } } });

/** The Set-Cookie header of pw_session, for checking attributes. */
export function sessionSetCookie(a: AnyCall): string | null {
  return setCookies(a).find((c) => c.startsWith('pw_session=')) ?? null;
}

/** Checks an answer's status, showing its body only when it is not the expected one. */
export function expectStatus(t: Test, a: AnyCall, status: number, what: string): boolean {
  const ok = t.equal(a.status, status, what);
  if (!ok) t.comment(a.payload.slice(0, 2000));
  return ok;
}
