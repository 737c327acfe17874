/**
 * A small local peer of the Stripe API routes payment-stripe uses (no Stripe emulator exists on
 * npm): prices by lookup key, customers, checkout sessions (catalog prices or inline `price_data`,
 * and Connect destination charges through `subscription_data[transfer_data]` and
 * `application_fee_percent`), billing portal sessions, subscriptions (retrieve, update: items by
 * price, quantity or inline price, deletion), accounts and account links. It keeps Stripe's idempotency semantics (same
 * key and path → the first answer), records every request, and signs webhook events with the
 * `Stripe-Signature: t=…,v1=…` scheme.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PeerRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  body: Record<string, unknown>;
}

type Obj = Record<string, unknown>;

const DAY = 86_400;

/** `a[b][0][c]=v` form bodies (and query strings) as nested objects; numeric keys become arrays. */
export function parseForm(text: string): Obj {
  const root: Obj = {};
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const parts = rawKey.replace(/\]/g, '').split('[');
    let cur: Obj = root;
    parts.forEach((part, i) => {
      if (i === parts.length - 1) cur[part] = value;
      else cur = (cur[part] ??= {}) as Obj;
    });
  }
  return arrays(root) as Obj;
}

function arrays(v: unknown): unknown {
  if (!v || typeof v !== 'object') return v;
  const o = v as Obj;
  const keys = Object.keys(o);
  if (keys.length > 0 && keys.every((k) => /^\d+$/.test(k)))
    return keys.sort((a, b) => Number(a) - Number(b)).map((k) => arrays(o[k]));
  for (const k of keys) o[k] = arrays(o[k]);
  return o;
}

export class StripePeer {
  readonly requests: PeerRequest[] = [];
  readonly prices: Obj[];
  readonly customers = new Map<string, Obj>();
  readonly sessions = new Map<string, Obj>();
  readonly subscriptions = new Map<string, Obj>();
  readonly accounts = new Map<string, Obj>();
  private readonly idempotent = new Map<string, { status: number; body: Obj }>();
  private server: Server | null = null;
  port = 0;

  constructor(
    readonly webhookSecret = `whsec_${randomBytes(16).toString('hex')}`,
    readonly connectSecret = `whsec_${randomBytes(16).toString('hex')}`,
  ) {
    const price = (key: string, amount: number, recurring: boolean, metadata: Obj = {}) => ({
      id: `price_${key}`,
      object: 'price',
      active: true,
      lookup_key: `patchwell_${key}`,
      unit_amount: amount,
      currency: 'usd',
      recurring: recurring ? { interval: 'month' } : null,
      metadata,
    });
    this.prices = [
      price('plan_indie', 2900, true),
      price('plan_startup', 9900, true),
      price('plan_growth', 24900, true),
      price('plan_managed', 49900, true),
      price('plan_agency', 39900, true),
      price('topup_topup_10', 3000, false, { fixes: '10' }),
      price('topup_topup_50', 12500, false, { fixes: '50' }),
      price('topup_topup_100', 20000, false, { fixes: '100' }),
      price('addon_badge_removal', 1900, true),
      price('addon_managed_workspace', 14900, true),
      price('extra_workspace_indie', 1500, true),
      price('extra_workspace_startup', 1500, true),
      price('extra_workspace_growth', 1200, true),
      price('extra_workspace_managed', 2500, true),
      price('extra_workspace_agency', 900, true),
      price('something_else', 100, true),
    ];
  }

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Mutating requests that came without an Idempotency-Key. */
  withoutIdempotencyKey(): PeerRequest[] {
    return this.requests.filter((r) => r.method !== 'GET' && !r.idempotencyKey);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? '/', this.baseUrl);
    const body =
      req.method === 'GET' ? parseForm(url.search.slice(1)) : parseForm(Buffer.concat(chunks).toString('utf8'));
    const key = (req.headers['idempotency-key'] as string | undefined) ?? null;
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname, idempotencyKey: key, body });
    const send = (status: number, payload: Obj) => {
      res.writeHead(status, {
        'content-type': 'application/json',
        'request-id': `req_${randomBytes(6).toString('hex')}`,
      });
      res.end(JSON.stringify(payload));
    };
    if (!String(req.headers.authorization ?? '').startsWith('Bearer sk_test_'))
      return send(401, { error: { type: 'invalid_request_error', message: 'Invalid API Key provided' } });
    const cacheKey = key ? `${req.method} ${url.pathname} ${key}` : null;
    if (cacheKey && this.idempotent.has(cacheKey)) {
      const hit = this.idempotent.get(cacheKey)!;
      return send(hit.status, hit.body);
    }
    let status = 200;
    let out: Obj;
    try {
      out = this.route(req.method ?? 'GET', url.pathname, body);
    } catch (err) {
      status = (err as { status?: number }).status ?? 400;
      out = {
        error: {
          type: 'invalid_request_error',
          code: status === 404 ? 'resource_missing' : 'parameter_invalid',
          message: (err as Error).message,
        },
      };
    }
    if (cacheKey) this.idempotent.set(cacheKey, { status, body: out });
    send(status, out);
  }

  private route(method: string, path: string, body: Obj): Obj {
    const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
    const missing = (what: string) => Object.assign(new Error(`No such ${what}`), { status: 404 });
    let m: RegExpExecArray | null;
    if (method === 'GET' && path === '/v1/prices') {
      const keys = (body.lookup_keys as string[] | undefined) ?? [];
      return {
        object: 'list',
        data: this.prices.filter((p) => keys.includes(p.lookup_key as string)),
        has_more: false,
        url: '/v1/prices',
      };
    }
    if (method === 'POST' && path === '/v1/customers') {
      const c = {
        id: id('cus'),
        object: 'customer',
        email: body.email ?? null,
        name: body.name ?? null,
        metadata: body.metadata ?? {},
      };
      this.customers.set(c.id, c);
      return c;
    }
    if (method === 'POST' && path === '/v1/checkout/sessions') {
      if (!body.customer || !this.customers.has(body.customer as string)) throw missing('customer');
      const items = body.line_items as Array<{ price?: string; quantity: string; price_data?: Obj }>;
      const first = items?.[0];
      if (!first || (first.price_data ? !first.price_data.unit_amount : !this.prices.some((p) => p.id === first.price)))
        throw new Error('line_items[0][price] is invalid');
      const td = ((body.subscription_data ?? {}) as Obj).transfer_data as Obj | undefined;
      if (td && !this.accounts.has(td.destination as string)) throw missing('account');
      const s = {
        id: id('cs_test'),
        object: 'checkout.session',
        url: `${this.baseUrl}/pay/${randomBytes(4).toString('hex')}`,
        status: 'open',
        payment_status: 'unpaid',
        ...body,
      };
      this.sessions.set(s.id, s);
      return s;
    }
    if (method === 'POST' && path === '/v1/billing_portal/sessions') {
      if (!this.customers.has(body.customer as string)) throw missing('customer');
      return {
        id: id('bps'),
        object: 'billing_portal.session',
        customer: body.customer,
        url: `${this.baseUrl}/portal/${randomBytes(4).toString('hex')}`,
        return_url: body.return_url,
      };
    }
    if ((m = /^\/v1\/subscriptions\/([^/]+)$/.exec(path))) {
      const sub = this.subscriptions.get(m[1]);
      if (!sub) throw missing('subscription');
      if (method === 'GET') return sub;
      this.updateSubscription(sub, body);
      return sub;
    }
    if (method === 'POST' && path === '/v1/accounts') {
      const a = {
        id: id('acct'),
        object: 'account',
        type: body.type,
        country: body.country,
        email: body.email ?? null,
        metadata: body.metadata ?? {},
        charges_enabled: false,
        payouts_enabled: false,
        details_submitted: false,
      };
      this.accounts.set(a.id, a);
      return a;
    }
    if (method === 'POST' && path === '/v1/account_links') {
      if (!this.accounts.has(body.account as string)) throw missing('account');
      return {
        object: 'account_link',
        url: `${this.baseUrl}/connect/${randomBytes(4).toString('hex')}`,
        created: Math.floor(Date.now() / 1000),
        expires_at: Math.floor(Date.now() / 1000) + 300,
      };
    }
    throw missing(`route ${method} ${path}`);
  }

  private updateSubscription(sub: Obj, body: Obj): void {
    const items = (sub.items as { data: Obj[] }).data;
    for (const change of (body.items as Obj[] | undefined) ?? []) {
      const existing = change.id ? items.find((i) => i.id === change.id) : undefined;
      if (existing && change.deleted === 'true') items.splice(items.indexOf(existing), 1);
      else if (existing) {
        if (change.price) existing.price = this.price(change.price as string);
        if (change.price_data) existing.price = this.inlinePrice(change.price_data as Obj);
        if (change.quantity) existing.quantity = Number(change.quantity);
      } else items.push(this.item(change.price as string, Number(change.quantity ?? 1), items[0]));
    }
    if (body.cancel_at_period_end !== undefined) sub.cancel_at_period_end = body.cancel_at_period_end === 'true';
    if (body.metadata) sub.metadata = { ...(sub.metadata as Obj), ...(body.metadata as Obj) };
    if (body.proration_behavior) sub.last_proration_behavior = body.proration_behavior;
    if (body.application_fee_percent !== undefined) sub.application_fee_percent = Number(body.application_fee_percent);
  }

  /** A price given inline (`price_data`): its own id, on the named product or a new one. */
  private inlinePrice(data: Obj): Obj {
    return {
      id: `price_inline_${randomBytes(6).toString('hex')}`,
      object: 'price',
      lookup_key: null,
      product: data.product ?? `prod_${randomBytes(6).toString('hex')}`,
      unit_amount: Number(data.unit_amount),
      currency: data.currency ?? 'usd',
      recurring: data.recurring ?? null,
    };
  }

  private price(priceId: string): Obj {
    const p = this.prices.find((x) => x.id === priceId);
    if (!p) throw new Error(`No such price ${priceId}`);
    return { id: p.id, object: 'price', lookup_key: p.lookup_key, unit_amount: p.unit_amount, recurring: p.recurring };
  }

  private item(priceId: string, quantity: number, like?: Obj): Obj {
    const now = Math.floor(Date.now() / 1000);
    return {
      id: `si_${randomBytes(6).toString('hex')}`,
      object: 'subscription_item',
      price: this.price(priceId),
      quantity,
      current_period_start: like?.current_period_start ?? now,
      current_period_end: like?.current_period_end ?? now + 30 * DAY,
    };
  }

  /** What Stripe does when the customer pays a checkout session: the subscription, and the events it sends. */
  completeCheckout(sessionId: string, opts: { at?: number } = {}): { subscription: Obj | null; events: Obj[] } {
    const s = this.sessions.get(sessionId);
    if (!s) throw new Error(`no session ${sessionId}`);
    const now = opts.at ?? Math.floor(Date.now() / 1000);
    const meta = (s.metadata ?? {}) as Obj;
    s.status = 'complete';
    s.payment_status = 'paid';
    if (s.mode === 'payment') {
      s.payment_intent = `pi_${randomBytes(6).toString('hex')}`;
      s.amount_total = this.prices.find((p) => p.id === (s.line_items as Obj[])[0].price)!.unit_amount;
      return { subscription: null, events: [this.event('checkout.session.completed', s, now)] };
    }
    const sd = (s.subscription_data ?? {}) as {
      trial_period_days?: string;
      metadata?: Obj;
      transfer_data?: Obj;
      application_fee_percent?: string;
      on_behalf_of?: string;
    };
    const trialDays = Number(sd.trial_period_days ?? 0);
    const end = trialDays > 0 ? now + trialDays * DAY : now + 30 * DAY;
    const line = (s.line_items as Obj[])[0];
    const item = line.price_data
      ? { ...this.item(this.prices[0].id as string, 1), price: this.inlinePrice(line.price_data as Obj) }
      : this.item(line.price as string, 1);
    Object.assign(item, { current_period_start: now, current_period_end: end });
    const sub: Obj = {
      id: `sub_${randomBytes(8).toString('hex')}`,
      object: 'subscription',
      customer: s.customer,
      status: trialDays > 0 ? 'trialing' : 'active',
      cancel_at_period_end: false,
      trial_end: trialDays > 0 ? end : null,
      metadata: sd.metadata ?? {},
      items: { object: 'list', data: [item] },
      transfer_data: sd.transfer_data ?? null,
      application_fee_percent: sd.application_fee_percent === undefined ? null : Number(sd.application_fee_percent),
      on_behalf_of: sd.on_behalf_of ?? null,
    };
    this.subscriptions.set(sub.id as string, sub);
    s.subscription = sub.id;
    const amount = trialDays > 0 ? 0 : Number((item.price as Obj).unit_amount);
    const feePercent = sub.application_fee_percent as number | null;
    const invoice = {
      id: `in_${randomBytes(6).toString('hex')}`,
      object: 'invoice',
      number: `PEER-${this.subscriptions.size}`,
      customer: s.customer,
      status: 'paid',
      amount_paid: trialDays > 0 ? 0 : item.price && (item.price as Obj).unit_amount,
      amount_due: trialDays > 0 ? 0 : (item.price as Obj).unit_amount,
      currency: 'usd',
      period_start: now,
      period_end: end,
      hosted_invoice_url: `${this.baseUrl}/invoice/x`,
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: sub.id, metadata: { ...(sd.metadata ?? {}), org_id: meta.org_id } },
      },
      // A destination charge: the connected account and the platform's fee.
      transfer_data: sub.transfer_data ? { destination: (sub.transfer_data as Obj).destination } : null,
      application_fee_amount: feePercent === null ? null : Math.round((amount * feePercent) / 100),
    };
    return {
      subscription: sub,
      events: [
        this.event('checkout.session.completed', s, now),
        this.event('customer.subscription.created', sub, now),
        this.event('invoice.paid', invoice, now),
      ],
    };
  }

  event(type: string, object: Obj, created = Math.floor(Date.now() / 1000)): Obj {
    return {
      id: `evt_${randomBytes(8).toString('hex')}`,
      object: 'event',
      type,
      created,
      api_version: '2026-10-28.endive',
      data: { object: JSON.parse(JSON.stringify(object)) as Obj },
    };
  }

  /** A webhook delivery of an event, signed like Stripe (`t=…,v1=…`). */
  sign(
    event: Obj,
    opts: { secret?: string; timestamp?: number } = {},
  ): { headers: Record<string, string>; rawBody: Buffer } {
    const raw = JSON.stringify(event);
    const t = opts.timestamp ?? Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', opts.secret ?? this.webhookSecret)
      .update(`${t}.${raw}`)
      .digest('hex');
    return { headers: { 'stripe-signature': `t=${t},v1=${v1}` }, rawBody: Buffer.from(raw) };
  }
}
