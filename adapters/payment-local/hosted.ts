import { TOPUP_FIXES, type HostedPageResponse, type HostedPaymentPage } from '../../core/contracts/index.js';
import type { LocalPaymentProvider } from './index.js';
import { escapeHtml as esc } from '../../core/http/html.js';
import { gonePage, langOf, page, t, usd, type Lang } from './pages.js';

const q = (lang: Lang) => (lang === 'it' ? '?lang=it' : '');
const langLinks = (path: string) => `<p><a href="${esc(path)}">EN</a> · <a href="${esc(path)}?lang=it">IT</a></p>`;

/** The hosted pages of payment-local: checkout, portal, payout onboarding, invoice. */
export function localPages(p: LocalPaymentProvider): HostedPaymentPage[] {
  const base = (p as unknown as { options: { basePath: string } }).options.basePath;

  async function checkoutPage(id: string, lang: Lang, error?: string): Promise<HostedPageResponse> {
    const c = await p.checkout(id);
    if (!c || c.status !== 'open' || new Date(c.expiresAt) <= p.now()) return gonePage(lang);
    const tr = t(lang);
    const prices = await p.prices();
    const what =
      c.mode === 'resale'
        ? `<p><strong>${esc(c.resale!.description)}</strong> — ${usd(c.resale!.amountUsd)} ${esc(tr.perMonth)}</p><p>${esc(tr.resaleNote)}</p>`
        : c.mode === 'subscription'
          ? `<p>${esc(tr.plan)}: <strong>${esc(c.plan)}</strong> — ${usd(prices.plans.find((x) => x.plan === c.plan)!.amountUsd)} ${esc(tr.perMonth)}</p>${c.trialDays > 0 ? `<p>${esc(tr.trial(c.trialDays))}</p>` : ''}`
          : `<p>${esc(tr.pack)}: <strong>${TOPUP_FIXES[c.pack!]} ${esc(tr.fixes)}</strong> — ${usd(prices.topups.find((x) => x.pack === c.pack)!.amountUsd)}</p>`;
    const action = `${base}/checkout/${c.id}${q(lang)}`;
    const html = page(
      lang,
      tr.checkoutTitle,
      [
        langLinks(`${base}/checkout/${c.id}`),
        what,
        `<p>${esc(c.email)}</p>`,
        error ? `<p class="error">${esc(error)}</p>` : '',
        `<form method="post" action="${esc(action)}"><label for="card">${esc(tr.card)}</label>`,
        '<input id="card" name="card" inputmode="numeric" autocomplete="cc-number" value="4242 4242 4242 4242">',
        `<button type="submit">${esc(c.mode === 'subscription' && c.trialDays > 0 ? tr.startTrial : tr.pay)}</button></form>`,
        `<p><a href="${esc(c.cancelUrl)}">${esc(tr.cancel)}</a></p>`,
      ].join('\n'),
    );
    return { status: error ? 402 : 200, html };
  }

  async function portalPage(id: string, lang: Lang, notice?: string): Promise<HostedPageResponse> {
    const portal = await p.portal(id);
    if (!portal) return gonePage(lang);
    const tr = t(lang);
    const { customer, subscriptions, invoices } = await p.portalView(portal);
    const action = `${base}/portal/${portal.id}${q(lang)}`;
    const subs = subscriptions
      .map(
        (s) =>
          `<tr><td>${esc(tr.plan)}: <strong>${esc(s.plan)}</strong></td><td>${esc(tr.status)}: ${esc(s.status)}</td></tr>` +
          `<tr><td colspan="2">${esc(tr.period)}: ${esc(s.currentPeriodEnd.slice(0, 10))}${s.cancelAtPeriodEnd ? ` — ${esc(tr.cancelsAt)}` : ''}</td></tr>`,
      )
      .join('');
    const live = subscriptions.find((s) => ['trialing', 'active', 'past_due'].includes(s.status));
    const buttons = live
      ? `<form method="post" action="${esc(action)}"><input type="hidden" name="action" value="${live.cancelAtPeriodEnd ? 'resume' : 'cancel'}"><button type="submit">${esc(live.cancelAtPeriodEnd ? tr.resume : tr.cancelSub)}</button></form>`
      : '';
    const html = page(
      lang,
      tr.portalTitle,
      [
        langLinks(`${base}/portal/${portal.id}`),
        notice ? `<p class="note">${esc(notice)}</p>` : '',
        `<table>${subs}</table>`,
        `<p>${esc(tr.cardOnFile)}: ${customer?.card ? `•••• ${esc(customer.card.last4)}` : esc(tr.none)}</p>`,
        buttons,
        `<form method="post" action="${esc(action)}"><input type="hidden" name="action" value="update_card"><label for="card">${esc(tr.card)}</label><input id="card" name="card" inputmode="numeric" value=""><button type="submit">${esc(tr.updateCard)}</button></form>`,
        `<h2>${esc(tr.invoices)}</h2><table>${invoices.map((i) => `<tr><td><a href="${esc(`${base}/invoices/${i.id}${q(lang)}`)}">${esc(i.number)}</a></td><td>${esc(i.createdAt.slice(0, 10))}</td><td>${usd(i.amountDueUsd)}</td><td>${esc(i.status)}</td></tr>`).join('')}</table>`,
        `<p><a href="${esc(portal.returnUrl)}">${esc(tr.back)}</a></p>`,
      ].join('\n'),
    );
    return { html };
  }

  async function connectPage(id: string, lang: Lang): Promise<HostedPageResponse> {
    const found = await p.accountLink(id);
    if (!found) return gonePage(lang);
    if (found.link.used || new Date(found.link.expiresAt) <= new Date()) return { redirect: found.link.refreshUrl };
    const tr = t(lang);
    const html = page(
      lang,
      tr.connectTitle,
      [
        langLinks(`${base}/connect/${id}`),
        `<p>${esc(found.account.email)} — ${esc(found.account.country)}</p>`,
        `<form method="post" action="${esc(`${base}/connect/${id}${q(lang)}`)}"><label for="business">${esc(tr.business)}</label><input id="business" name="business" value="">`,
        `<button type="submit">${esc(tr.submit)}</button></form>`,
      ].join('\n'),
    );
    return { html };
  }

  return [
    {
      method: 'GET',
      path: `${base}/checkout/{session}`,
      handle: (r) => checkoutPage(r.params.session ?? '', langOf(r.query)),
    },
    {
      method: 'POST',
      path: `${base}/checkout/{session}`,
      handle: async (r) => {
        const lang = langOf(r.query);
        const result = await p.completeCheckout(r.params.session ?? '', r.form.card ?? '');
        if ('redirect' in result) return { redirect: result.redirect };
        if (result.error === 'gone') return gonePage(lang);
        return checkoutPage(r.params.session ?? '', lang, t(lang).declined);
      },
    },
    {
      method: 'GET',
      path: `${base}/portal/{session}`,
      handle: (r) => portalPage(r.params.session ?? '', langOf(r.query)),
    },
    {
      method: 'POST',
      path: `${base}/portal/{session}`,
      handle: async (r) => {
        const lang = langOf(r.query);
        const ok = await p.portalAction(r.params.session ?? '', r.form.action ?? '', r.form.card);
        return portalPage(r.params.session ?? '', lang, ok ? t(lang).updated : t(lang).declined);
      },
    },
    { method: 'GET', path: `${base}/connect/{link}`, handle: (r) => connectPage(r.params.link ?? '', langOf(r.query)) },
    {
      method: 'POST',
      path: `${base}/connect/{link}`,
      handle: async (r) => {
        const to = await p.completeOnboarding(r.params.link ?? '', r.form.business ?? '');
        return to ? { redirect: to } : gonePage(langOf(r.query));
      },
    },
    {
      method: 'GET',
      path: `${base}/invoices/{invoice}`,
      handle: async (r) => {
        const lang = langOf(r.query);
        const inv = await p.invoiceById(r.params.invoice ?? '');
        if (!inv) return gonePage(lang);
        return {
          html: page(
            lang,
            inv.number,
            `<p>${esc(inv.line)}</p><p>${usd(inv.amountDueUsd)} — ${esc(inv.status)}</p><p>${esc(inv.createdAt.slice(0, 10))}</p>`,
          ),
        };
      },
    },
  ];
}
