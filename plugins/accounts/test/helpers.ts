import type { Test } from 'tap';
import type { App } from '../../../core/kernel/app.js';
import { startTestApp } from '../../../test/helpers/app.js';
import { sessionFrom, setCookies } from '../../../test/helpers/accounts.js';

export { sessionFrom };

export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  payload: string;
  body: Record<string, unknown> & { [k: string]: unknown };
}

/** What the tests read of the answers: parts of the API's documented shapes. */
export type UserJson = {
  id: string;
  org_id: string;
  email: string;
  email_verified_at: string | null;
  last_login_at: string | null;
};
/** An AuthContext: signed up, signed in or /v1/auth/me. */
export type AuthJson = {
  email_verification_required: boolean;
  user: UserJson;
  organization: { id: string; name: string; slug: string; referral_code: string };
  workspaces: { id: string }[];
  session: { expires_at: string; sso: boolean };
  staff: boolean;
  plan: { id: string };
};
/** An invitation, an API token or a member, as created, listed or changed. */
export type ItemJson = {
  id: string;
  name: string;
  email: string;
  role: string;
  status: string;
  token: string;
  last4: string;
  expires_at: string;
  workspace_ids: string[];
};
export type ListJson = { items: ItemJson[]; next_cursor: string | null };
/** A refused request: its code and, for a payload that fails validation, the paths at fault. */
export type RefusalJson = { code: string; details: { errors: { path: string }[] } };

/** Whoever acts (a signed-in member), and the member acted on. */
type Signed = { auth: { headers: Record<string, string> } };
type Member = { user: { id: string } };

type InjectOptions = { method?: string; url: string; payload?: unknown; headers?: Record<string, string> };

/**
 * A test service that remembers every answer, so a test can check at its end that no answer
 * ever carried a password hash, a stored token hash or a password.
 */
export interface AccountsHarness {
  app: App;
  answers: Answer[];
  call(opts: InjectOptions & { auth?: { headers: Record<string, string> } }): Promise<Answer>;
  /** POST /v1/auth/login with an email and a password. */
  login(email: string, password: string): Promise<Answer>;
  /** PATCH /v1/members/{id} of `member` as `by`: a role or workspace_ids change. */
  patchMember(by: Signed, member: Member, payload: Record<string, unknown>): Promise<Answer>;
  /** DELETE /v1/members/{id} of `member` as `by`. */
  removeMember(by: Signed, member: Member): Promise<Answer>;
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
  const answers: Answer[] = [];
  const h: AccountsHarness = {
    app,
    answers,
    async call(opts) {
      const headers = { ...(opts.auth?.headers ?? {}), ...(opts.headers ?? {}) };
      const res = await app.server.inject({
        method: opts.method ?? 'GET',
        url: opts.url,
        payload: opts.payload as object | undefined,
        headers,
      });
      let body: Record<string, unknown>;
      try {
        body = res.payload ? (JSON.parse(res.payload) as Record<string, unknown>) : {};
      } catch {
        body = {};
      }
      const answer: Answer = {
        statusCode: res.statusCode,
        headers: res.headers,
        payload: res.payload,
        body,
      };
      answers.push(answer);
      return answer;
    },
    login: (email, password) => h.call({ method: 'POST', url: '/v1/auth/login', payload: { email, password } }),
    patchMember: (by, member, payload) =>
      h.call({ method: 'PATCH', url: `/v1/members/${member.user.id}`, payload, auth: by.auth }),
    removeMember: (by, member) => h.call({ method: 'DELETE', url: `/v1/members/${member.user.id}`, auth: by.auth }),
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

export const cookieHeader = (token: string) => ({ headers: { cookie: `pw_session=${token}` } });

/** The Set-Cookie header of pw_session, for checking attributes. */
export function sessionSetCookie(a: Answer): string | null {
  return setCookies(a).find((c) => c.startsWith('pw_session=')) ?? null;
}

/** Checks an answer's status, showing its body only when it is not the expected one. */
export function expectStatus(t: Test, a: Answer, status: number, what: string): boolean {
  const ok = t.equal(a.statusCode, status, what);
  if (!ok) t.comment(a.payload.slice(0, 2000));
  return ok;
}
