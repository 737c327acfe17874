import type { Request, ResponseToolkit, Server } from '@hapi/hapi';
import type {
  HostedPaymentPage,
  PaymentHost,
  PaymentProvider,
  PaymentWebhookEndpoint,
  WebhookDelivery,
} from '../../../core/contracts/index.js';

const CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'";

/**
 * The provider's own pages (a simulated provider's hosted checkout, portal and payout
 * onboarding), served outside the API: plain hapi routes without an operation id, so they stay
 * out of OpenAPI. Their webhooks come back through `deliverWebhook`, which injects the delivery
 * into the service's own webhook route: the same route, signature check and handler as a delivery
 * over HTTP, and finished before the page answers (so a test that posts the form sees the effect).
 */
export function registerHostedPages(
  server: Server,
  provider: PaymentProvider,
  publicBaseUrl: string,
): HostedPaymentPage[] {
  if (!provider.hostedPages) return [];
  const short = provider.identifier.replace(/^payment-/, '');
  const host: PaymentHost = {
    publicBaseUrl,
    async deliverWebhook(delivery: WebhookDelivery, endpoint: PaymentWebhookEndpoint): Promise<number> {
      const res = await server.inject({
        method: 'POST',
        url: `/v1/webhooks/payment/${short}${endpoint === 'connect' ? '/connect' : ''}`,
        headers: { ...stringHeaders(delivery.headers), 'content-type': 'application/json' },
        payload: delivery.rawBody,
      });
      return res.statusCode;
    },
  };
  const pages = provider.hostedPages(host);
  for (const page of pages) {
    server.route({
      method: page.method,
      path: page.path,
      options: {
        auth: false,
        ...(page.method === 'POST'
          ? { payload: { parse: true, allow: ['application/x-www-form-urlencoded'], maxBytes: 16 * 1024 } }
          : {}),
        handler: async (request: Request, h: ResponseToolkit) => {
          const res = await page.handle({
            params: strings(request.params),
            query: strings(request.query),
            form: strings((request.payload as Record<string, unknown> | null) ?? {}),
          });
          if ('redirect' in res) return h.redirect(res.redirect).code(303);
          return h
            .response(res.html)
            .type('text/html; charset=utf-8')
            .code(res.status ?? 200)
            .header('Content-Security-Policy', CSP)
            .header('Cache-Control', 'no-store');
        },
      },
    });
  }
  return pages;
}

function strings(o: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(o ?? {})) if (typeof v === 'string') out[k] = v;
  return out;
}

function stringHeaders(h: WebhookDelivery['headers']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(h)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}
