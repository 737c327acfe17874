/**
 * Tiny in-memory adapters, one per extension point, built on the abstract base classes. They
 * exist to prove the contract kits (kits.test.ts) and double as the shortest worked examples of
 * each contract. Nothing here talks to a vendor.
 */
import { X509Certificate } from 'node:crypto';
import Joi from 'joi';
import {
  AbstractAgentExecutor,
  AbstractChannelAdapter,
  AbstractCodeHost,
  AbstractConnectorAdapter,
  AbstractIdentityProvider,
  AbstractPaymentProvider,
  AdapterError,
  AdapterNotFoundError,
  PaymentSignatureError,
  PayloadError,
  SignInError,
  TOPUP_PACK_IDS,
  agentExecutorOptionKeys,
  channelAdapterOptionKeys,
  codeHostOptionKeys,
  connectorAdapterOptionKeys,
  headerValue,
  identityProviderOptionKeys,
  paymentProviderOptionKeys,
  safeEqual,
  verifySha256Header,
  type AgentExecutorOptions,
  type AgentJob,
  type Branch,
  type ChannelAdapterOptions,
  type CheckoutInput,
  type CheckoutSession,
  type CiStatus,
  type CodeHostEvent,
  type CodeHostOptions,
  type CodeHostUser,
  type CompareResult,
  type ConnectionTestResult,
  type ConnectOnboarding,
  type ConnectorAdapterOptions,
  type ConnectorSecretName,
  type ConnectorSettings,
  type ConnectorTestResult,
  type DomainPurpose,
  type DomainState,
  type GitAccess,
  type IdentityProviderOptions,
  type Installation,
  type JobIO,
  type NormalizedEvent,
  type OpenPullRequestInput,
  type PaidPlanId,
  type PaymentEvent,
  type PaymentProviderOptions,
  type PollResult,
  type PriceList,
  type PullRequest,
  type RawHeaders,
  type RepoFile,
  type RepoRef,
  type Repository,
  type SendResult,
  type OutgoingEmail,
  type SettingsContext,
  type SettingsIssue,
  type SignInCallback,
  type SsoConnectionSettings,
  type SsoIdentity,
  type StartSignInInput,
  type StartSignInResult,
  type SubscriptionState,
  type TreeEntry,
  type UpdatePullRequestInput,
} from '../../core/contracts/index.js';

/**
 * What `body` answers, as a promise, and what it throws, as a rejection: the fakes compute their
 * answers at once, yet keep the promise a vendor-backed adapter's async method would give.
 */
function settle<T>(body: () => T): Promise<T> {
  return new Promise<T>((resolve) => resolve(body()));
}

// --- channel ------------------------------------------------------------------------------

export interface FakeChannelOptions extends ChannelAdapterOptions {
  sendingHost: string;
}

export class FakeChannelAdapter extends AbstractChannelAdapter<FakeChannelOptions> {
  static override identifier = 'mail-fake';
  static override optionsSchema = Joi.object<FakeChannelOptions>({
    ...channelAdapterOptionKeys,
    sendingHost: Joi.string().hostname().required(),
  });

  readonly sent: OutgoingEmail[] = [];
  private readonly domains = new Map<string, DomainState>();

  send(message: OutgoingEmail): Promise<SendResult> {
    this.sent.push(message);
    const accepted = [...message.to, ...(message.cc ?? [])].map((a) => a.address);
    return Promise.resolve({ providerMessageId: `fake-${this.sent.length}@${this.options.sendingHost}`, accepted });
  }

  registerDomain(domain: string, purpose: DomainPurpose): Promise<DomainState> {
    const name = domain.toLowerCase();
    const known = this.domains.get(`${purpose}:${name}`);
    if (known) return Promise.resolve(known);
    const state: DomainState = {
      domain: name,
      purpose,
      status: 'pending',
      records:
        purpose === 'sending'
          ? [
              {
                purpose,
                record: 'spf',
                type: 'TXT',
                name,
                value: `v=spf1 include:${this.options.sendingHost} ~all`,
                status: 'pending',
              },
              {
                purpose,
                record: 'dkim',
                type: 'CNAME',
                name: `pw._domainkey.${name}`,
                value: `dkim.${this.options.sendingHost}`,
                status: 'pending',
              },
            ]
          : [
              {
                purpose,
                record: 'mx',
                type: 'MX',
                name,
                value: `inbound.${this.options.sendingHost}`,
                priority: 10,
                status: 'pending',
              },
            ],
    };
    this.domains.set(`${purpose}:${name}`, state);
    return Promise.resolve(state);
  }

  checkDomain(domain: string, purpose: DomainPurpose): Promise<DomainState> {
    const state = this.domains.get(`${purpose}:${domain.toLowerCase()}`);
    if (!state) return Promise.reject(new AdapterNotFoundError(`domain ${domain} is not registered`));
    return Promise.resolve(state);
  }

  deleteDomain(domain: string, purpose: DomainPurpose): Promise<void> {
    this.domains.delete(`${purpose}:${domain.toLowerCase()}`);
    return Promise.resolve();
  }
}

// --- connectors ---------------------------------------------------------------------------

/** The generic endpoint: pushes with `Authorization: Bearer <token>`, nothing to poll. */
export class FakeEndpointConnector extends AbstractConnectorAdapter {
  static override identifier = 'connector-fake-endpoint';
  static override optionsSchema = Joi.object<ConnectorAdapterOptions>({ ...connectorAdapterOptionKeys });
  readonly kind = 'endpoint' as const;
  readonly secretNames: readonly ConnectorSecretName[] = ['token'];
  protected override readonly requiredSecrets: readonly ConnectorSecretName[] = ['token'];

  test(settings: ConnectorSettings): Promise<ConnectorTestResult> {
    return settle(() => this.pushOnlyTestResult(settings));
  }

  verifyPush(headers: RawHeaders, _rawBody: Buffer, settings: ConnectorSettings): boolean {
    const auth = headerValue(headers, 'authorization') ?? '';
    const token = settings.secrets.token;
    return Boolean(token) && safeEqual(auth, `Bearer ${token}`);
  }

  normalizePush(body: unknown): NormalizedEvent[] {
    const items = Array.isArray(body) ? body : [body];
    return items.map((item) => {
      if (typeof item !== 'object' || item === null) throw new PayloadError('an event is an object');
      const e = item as Record<string, unknown>;
      if (typeof e.message !== 'string') throw new PayloadError('an event needs a message');
      return {
        type: typeof e.type === 'string' && e.type ? e.type : 'Error',
        message: e.message,
        level: 'error',
        occurred_at: typeof e.occurred_at === 'string' ? e.occurred_at : new Date().toISOString(),
        ...(typeof e.release === 'string' ? { release: e.release } : {}),
      };
    });
  }
}

/** A polling source with an https API base URL and an api key. */
export class FakeMetricsConnector extends AbstractConnectorAdapter {
  static override identifier = 'connector-fake-metrics';
  static override optionsSchema = Joi.object<ConnectorAdapterOptions>({ ...connectorAdapterOptionKeys });
  readonly kind = 'metrics_platform' as const;
  readonly secretNames: readonly ConnectorSecretName[] = ['api_key', 'application_key'];
  protected override readonly requiredConfig = ['site'];
  protected override readonly requiredSecrets: readonly ConnectorSecretName[] = ['api_key'];

  protected override checkSettings(
    config: Record<string, unknown>,
    _s: Record<string, string>,
    _c: SettingsContext,
  ): SettingsIssue[] {
    return this.checkUrl('config.site', config.site);
  }

  test(settings: ConnectorSettings): Promise<ConnectorTestResult> {
    return Promise.resolve(
      settings.secrets.api_key === 'good-key'
        ? { ok: true, code: 'ok', message: 'logs are readable', details: {} }
        : { ok: false, code: 'unauthorized', message: 'the api key was refused', details: { status: 403 } },
    );
  }

  poll(_settings: ConnectorSettings, cursor: string | null): Promise<PollResult> {
    const n = Number(cursor ?? 0) + 1;
    const event: NormalizedEvent = {
      external_id: `log-${n}`,
      type: 'TypeError',
      message: 'form is null',
      level: 'error',
      frames: [{ file: 'app.js', function: 'submit', line: 10, column: 4, in_app: true }],
      occurred_at: new Date(1_700_000_000_000).toISOString(),
    };
    return Promise.resolve({ events: [event], cursor: String(n), nextPollInMs: 60_000 });
  }
}

// --- agent --------------------------------------------------------------------------------

export class FakeBuiltinExecutor extends AbstractAgentExecutor {
  static override identifier = 'agent-fake';
  static override optionsSchema = Joi.object<AgentExecutorOptions>({ ...agentExecutorOptionKeys });
  readonly mode = 'builtin' as const;
  readonly capabilities = { diagnose: true, fix: false };

  protected async run(job: AgentJob, io: JobIO): Promise<void> {
    if (io.isCancelled()) return io.complete({ status: 'cancelled', cost_usd: 0 });
    await io.emit({ level: 'info', type: 'phase', message: 'classifying', data: { ticket: job.ticket.id } });
    const bug = /error|nothing happens/i.test(job.ticket.body);
    await io.complete({
      status: 'succeeded',
      cost_usd: 0,
      diagnosis: {
        category: bug ? 'bug' : 'usage',
        confidence: 0.6,
        root_cause_md: bug ? 'The form handler fails before submitting.' : 'A question about usage.',
        references: [],
      },
      drafts: [{ kind: 'interim', body_md: 'Thanks, we are looking into it.' }],
    });
  }
}

// --- payment ------------------------------------------------------------------------------

export class FakePaymentProvider extends AbstractPaymentProvider {
  static override identifier = 'payment-fake';
  static override optionsSchema = Joi.object<PaymentProviderOptions>({
    ...paymentProviderOptionKeys,
    webhookSecret: Joi.string().min(16).required(),
  });

  private seq = 0;
  private readonly subs = new Map<string, SubscriptionState>();
  private readonly accounts = new Set<string>();

  private next(prefix: string): string {
    return `${prefix}_${++this.seq}`;
  }

  prices(): Promise<PriceList> {
    return Promise.resolve({
      plans: [
        { plan: 'indie', priceId: 'price_indie', amountUsd: 29, interval: 'month' },
        { plan: 'startup', priceId: 'price_startup', amountUsd: 99, interval: 'month' },
      ],
      topups: TOPUP_PACK_IDS.map((pack) => ({
        pack,
        priceId: `price_${pack}`,
        amountUsd: this.fixesOf(pack) * 2,
        fixes: this.fixesOf(pack),
      })),
    });
  }

  createCheckout(input: CheckoutInput, key: string): Promise<CheckoutSession> {
    return this.once('checkout', key, () => {
      const checkoutId = this.next('cs');
      return Promise.resolve({
        checkoutId,
        url: `http://localhost:3000/local-pay/${checkoutId}`,
        customerId: input.customer.customerId ?? null,
      });
    });
  }

  createPortal(input: { customerId: string }): Promise<{ url: string }> {
    return Promise.resolve({ url: `http://localhost:3000/local-pay/portal/${input.customerId}` });
  }

  /** Test helper: what completing a checkout would create. */
  activate(plan: PaidPlanId): { subscriptionId: string; customerId: string; plan: PaidPlanId } {
    const now = Date.now();
    const s: SubscriptionState = {
      subscriptionId: this.next('sub'),
      customerId: this.next('cus'),
      plan,
      status: 'trialing',
      currentPeriodStart: new Date(now),
      currentPeriodEnd: new Date(now + 30 * 86_400_000),
      cancelAtPeriodEnd: false,
      trialEndsAt: new Date(now + 14 * 86_400_000),
    };
    this.subs.set(s.subscriptionId, s);
    return { subscriptionId: s.subscriptionId, customerId: s.customerId, plan };
  }

  private sub(id: string): SubscriptionState {
    const s = this.subs.get(id);
    if (!s) throw new AdapterNotFoundError(`subscription ${id} does not exist`);
    return s;
  }

  changePlan(input: { subscriptionId: string; plan: PaidPlanId }, key: string): Promise<SubscriptionState> {
    return this.once('plan', key, () =>
      settle(() => {
        const s = { ...this.sub(input.subscriptionId), plan: input.plan };
        this.subs.set(s.subscriptionId, s);
        return s;
      }),
    );
  }

  cancelAtPeriodEnd(subscriptionId: string, key: string): Promise<SubscriptionState> {
    return this.once('cancel', key, () =>
      settle(() => {
        const s = { ...this.sub(subscriptionId), cancelAtPeriodEnd: true };
        this.subs.set(s.subscriptionId, s);
        return s;
      }),
    );
  }

  createConnectOnboarding(input: { accountId: string | null }): Promise<ConnectOnboarding> {
    const accountId = input.accountId ?? this.next('acct');
    this.accounts.add(accountId);
    return Promise.resolve({ accountId, url: `http://localhost:3000/local-pay/connect/${accountId}` });
  }

  parseWebhook(headers: RawHeaders, rawBody: Buffer): Promise<PaymentEvent> {
    return settle(() => this.paymentEvent(headers, rawBody));
  }

  private paymentEvent(headers: RawHeaders, rawBody: Buffer): PaymentEvent {
    if (!verifySha256Header(headers, 'x-fake-signature', this.options.webhookSecret ?? '', rawBody))
      throw new PaymentSignatureError();
    let body: { id?: unknown; type?: unknown; org_id?: unknown; pack?: unknown };
    try {
      body = JSON.parse(rawBody.toString('utf8')) as typeof body;
    } catch {
      throw new PayloadError('the webhook body is not JSON');
    }
    const base = {
      id: String(body.id),
      occurredAt: new Date(),
      orgId: typeof body.org_id === 'string' ? body.org_id : null,
    };
    if (body.type === 'topup.paid' && body.pack === 'topup_10') {
      return {
        ...base,
        type: 'topup.paid',
        pack: 'topup_10',
        fixes: 10,
        amountUsd: 20,
        paymentId: 'pay_1',
        customerId: 'cus_1',
      };
    }
    return { ...base, type: 'unhandled', providerType: String(body.type) };
  }
}

// --- code host ----------------------------------------------------------------------------

const MAIN_SHA = 'a'.repeat(40);
const FEATURE_SHA = 'b'.repeat(40);

export class FakeCodeHost extends AbstractCodeHost {
  static override identifier = 'codehost-fake';
  static override optionsSchema = Joi.object<CodeHostOptions>({
    ...codeHostOptionKeys,
    webhookSecret: Joi.string().min(16).required(),
  });

  private readonly prs = new Map<number, PullRequest>();
  private readonly branches = new Map([
    ['main', MAIN_SHA],
    ['feature', FEATURE_SHA],
  ]);
  private readonly files = new Map([
    ['README.md', 'Kit app\n'],
    ['src/app.js', 'console.log(1)\n'],
  ]);

  private repoFor(ref: RepoRef): Repository {
    if (ref.fullName !== 'kit/app') throw new AdapterNotFoundError(`repository ${ref.fullName} does not exist`);
    return {
      id: '1',
      fullName: 'kit/app',
      htmlUrl: 'https://code.example.test/kit/app',
      cloneUrl: '/tmp/kit/app.git',
      defaultBranch: 'main',
      isPublic: true,
      archived: false,
    };
  }

  installUrl(state: string): Promise<string> {
    return Promise.resolve(
      `https://code.example.test/apps/patchwell/installations/new?state=${encodeURIComponent(state)}`,
    );
  }
  getInstallation(id: string): Promise<Installation> {
    return Promise.resolve({
      id,
      account: { login: 'kit', type: 'organization' },
      repositorySelection: 'all',
      permissions: { contents: 'write' },
      suspendedAt: null,
    });
  }
  listRepositories(): Promise<Repository[]> {
    return settle(() => [this.repoFor({ installationId: null, fullName: 'kit/app' })]);
  }
  getRepository(ref: RepoRef): Promise<Repository> {
    return settle(() => this.repoFor(ref));
  }
  readFile(ref: RepoRef, path: string): Promise<RepoFile | null> {
    return settle(() => {
      this.repoFor(ref);
      const text = this.files.get(path);
      return text === undefined ? null : { path, content: Buffer.from(text), sha: 'c'.repeat(40) };
    });
  }
  listTree(ref: RepoRef): Promise<TreeEntry[]> {
    return settle(() => {
      this.repoFor(ref);
      return [
        { path: 'src', type: 'dir', sha: 'd'.repeat(40) },
        ...[...this.files].map(([path, text]) => ({
          path,
          type: 'file' as const,
          sha: 'c'.repeat(40),
          size: text.length,
        })),
      ];
    });
  }
  getBranch(ref: RepoRef, name: string): Promise<Branch | null> {
    return settle(() => {
      this.repoFor(ref);
      const sha = this.branches.get(name);
      return sha ? { name, sha, protected: name === 'main' } : null;
    });
  }
  compare(_ref: RepoRef, base: string, head: string): Promise<CompareResult> {
    const same = (this.branches.get(base) ?? base) === (this.branches.get(head) ?? head);
    return Promise.resolve({
      diff: same ? '' : '--- a/src/app.js\n+++ b/src/app.js\n',
      truncated: false,
      aheadBy: same ? 0 : 1,
      behindBy: 0,
    });
  }
  private pr(number: number): PullRequest {
    const pr = this.prs.get(number);
    if (!pr) throw new AdapterNotFoundError(`pull request ${number} does not exist`);
    return pr;
  }
  openPullRequest(_ref: RepoRef, input: OpenPullRequestInput): Promise<PullRequest> {
    const number = this.prs.size + 1;
    const pr: PullRequest = {
      number,
      url: `https://code.example.test/kit/app/pull/${number}`,
      title: input.title,
      body: input.body,
      state: 'open',
      draft: input.draft ?? false,
      head: { branch: input.head, sha: this.branches.get(input.head) ?? FEATURE_SHA },
      base: { branch: input.base },
      labels: [],
      mergeSha: null,
    };
    this.prs.set(number, pr);
    return Promise.resolve(pr);
  }
  getPullRequest(_ref: RepoRef, number: number): Promise<PullRequest | null> {
    return Promise.resolve(this.prs.get(number) ?? null);
  }
  findPullRequestByBranch(_ref: RepoRef, branch: string): Promise<PullRequest | null> {
    return Promise.resolve([...this.prs.values()].reverse().find((p) => p.head.branch === branch) ?? null);
  }
  updatePullRequest(_ref: RepoRef, number: number, input: UpdatePullRequestInput): Promise<PullRequest> {
    return settle(() => {
      const pr = {
        ...this.pr(number),
        ...(input.title ? { title: input.title } : {}),
        ...(input.body ? { body: input.body } : {}),
      };
      this.prs.set(number, pr);
      return pr;
    });
  }
  closePullRequest(_ref: RepoRef, number: number): Promise<PullRequest> {
    return settle(() => {
      const pr: PullRequest = { ...this.pr(number), state: 'closed' };
      this.prs.set(number, pr);
      return pr;
    });
  }
  mergePullRequest(_ref: RepoRef, number: number, input: { sha: string }): Promise<{ sha: string }> {
    return settle(() => {
      const pr = this.pr(number);
      if (pr.head.sha !== input.sha) throw new AdapterError('sha_mismatch', 'the head moved since the approval');
      this.prs.set(number, { ...pr, state: 'merged', mergeSha: 'e'.repeat(40) });
      return { sha: 'e'.repeat(40) };
    });
  }
  addLabels(_ref: RepoRef, number: number, labels: string[]): Promise<void> {
    return settle(() => {
      const pr = this.pr(number);
      this.prs.set(number, { ...pr, labels: [...new Set([...pr.labels, ...labels])] });
    });
  }
  async ensureLabel(): Promise<void> {}
  comment(_ref: RepoRef, number: number): Promise<{ id: string; url: string }> {
    return Promise.resolve({ id: `c${number}`, url: `https://code.example.test/kit/app/pull/${number}#c` });
  }
  async closeIssue(): Promise<void> {}
  createTag(_ref: RepoRef, input: { name: string; sha: string }): Promise<{ name: string; sha: string }> {
    return Promise.resolve({ name: input.name, sha: input.sha });
  }
  createRelease(_ref: RepoRef, input: { tag: string }): Promise<{ id: string; url: string }> {
    return Promise.resolve({ id: input.tag, url: `https://code.example.test/kit/app/releases/${input.tag}` });
  }
  getCommitStatus(): Promise<CiStatus> {
    return Promise.resolve({ state: 'none', checks: [] });
  }
  async setSecret(): Promise<void> {}
  createGitAccess(ref: RepoRef): Promise<GitAccess> {
    return settle(() => ({
      token: 'fake-token',
      expiresAt: new Date(Date.now() + 3_600_000),
      cloneUrl: this.repoFor(ref).cloneUrl,
    }));
  }
  parseWebhook(headers: RawHeaders, rawBody: Buffer): CodeHostEvent {
    let payload: Record<string, unknown>;
    try {
      payload = JSON.parse(rawBody.toString('utf8')) as Record<string, unknown>;
    } catch {
      throw new PayloadError('the webhook body is not JSON');
    }
    const name = headerValue(headers, 'x-github-event') ?? 'unknown';
    return {
      deliveryId: headerValue(headers, 'x-github-delivery') ?? '',
      kind: name === 'pull_request' || name === 'ping' ? name : 'other',
      name,
      action: typeof payload.action === 'string' ? payload.action : null,
      installationId: null,
      repository: { id: '1', fullName: 'kit/app' },
      sender: { login: 'ada' },
      payload,
    };
  }
  authorizeUrl(input: { state: string; codeChallenge: string; redirectUri: string }): Promise<string> {
    const q = new URLSearchParams({
      client_id: 'fake',
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
      redirect_uri: input.redirectUri,
    });
    return Promise.resolve(`https://code.example.test/login/oauth/authorize?${q}`);
  }
  exchangeCode(): Promise<CodeHostUser> {
    return Promise.reject(new AdapterError('invalid_grant', 'the code is unknown or used'));
  }
}

// --- identity -----------------------------------------------------------------------------

export class FakeOidcProvider extends AbstractIdentityProvider {
  static override identifier = 'identity-fake-oidc';
  static override optionsSchema = Joi.object<IdentityProviderOptions>({ ...identityProviderOptionKeys });
  readonly protocol = 'oidc' as const;

  testConnection(conn: SsoConnectionSettings): Promise<ConnectionTestResult> {
    return settle((): ConnectionTestResult => {
      const issuer = new URL(conn.issuer ?? 'about:blank');
      if (issuer.protocol !== 'https:')
        return { ok: false, error: 'insecure_issuer', details: { issuer: conn.issuer } };
      if (/^(127\.|localhost$)/.test(issuer.hostname))
        return { ok: false, error: 'blocked_address', details: { host: issuer.hostname } };
      return { ok: true, details: { authorization_endpoint: `${conn.issuer}/authorize` } };
    });
  }

  startSignIn(conn: SsoConnectionSettings, input: StartSignInInput): Promise<StartSignInResult> {
    const q = new URLSearchParams({
      state: input.state,
      redirect_uri: input.redirectUri,
      client_id: conn.clientId ?? '',
    });
    return Promise.resolve({
      redirectUrl: `${conn.issuer}/authorize?${q}`,
      pending: { state: input.state, nonce: 'n-1' },
    });
  }

  completeSignIn(
    _conn: SsoConnectionSettings,
    input: SignInCallback,
    pending: Record<string, unknown>,
  ): Promise<SsoIdentity> {
    return settle(() => {
      this.assertState(input.params.state, pending);
      if (input.params.code !== 'good-code') throw new SignInError('invalid_response', 'the code was refused');
      return this.identity('sub-1', 'Ada@Example.test', true, 'Ada');
    });
  }
}

export class FakeSamlProvider extends AbstractIdentityProvider {
  static override identifier = 'identity-fake-saml';
  static override optionsSchema = Joi.object<IdentityProviderOptions>({ ...identityProviderOptionKeys });
  readonly protocol = 'saml' as const;

  testConnection(conn: SsoConnectionSettings): Promise<ConnectionTestResult> {
    try {
      const cert = new X509Certificate(conn.idpCert ?? '');
      if (new Date(cert.validTo) < new Date())
        return Promise.resolve({ ok: false, error: 'certificate_expired', details: { valid_to: cert.validTo } });
      return Promise.resolve({ ok: true, details: { subject: cert.subject } });
    } catch {
      return Promise.resolve({ ok: false, error: 'certificate_invalid', details: {} });
    }
  }

  startSignIn(conn: SsoConnectionSettings, input: StartSignInInput): Promise<StartSignInResult> {
    const q = new URLSearchParams({ SAMLRequest: 'kit', RelayState: input.state });
    return Promise.resolve({
      redirectUrl: `${conn.idpSsoUrl}?${q}`,
      pending: { state: input.state, requestId: '_r1' },
    });
  }

  completeSignIn(
    _conn: SsoConnectionSettings,
    input: SignInCallback,
    pending: Record<string, unknown>,
  ): Promise<SsoIdentity> {
    return settle(() => {
      this.assertState(input.params.RelayState, pending);
      throw new SignInError('signature_invalid', 'the fake never trusts an assertion');
    });
  }

  serviceProviderMetadata(conn: SsoConnectionSettings): string {
    const sp = conn.serviceProvider;
    return `<EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="${sp.entityId}"><SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol"><AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="${sp.acsUrl}" index="0"/></SPSSODescriptor></EntityDescriptor>`;
  }
}
