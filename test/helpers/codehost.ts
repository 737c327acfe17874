/**
 * Code-host test helpers: real webhook payloads from @octokit/webhooks-examples, signed as
 * GitHub signs them (X-Hub-Signature-256 over the raw body), for any code-host test.
 *
 * @example
 *   const d = signedDelivery('issues', 'opened', SECRET, (p) => { p.installation = { id: 42 }; });
 *   await app.server.inject({ method: 'POST', url: '/v1/webhooks/codehost', headers: d.headers, payload: d.rawBody });
 */
import { createHmac, randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import type { WebhookEventMap, WebhookEventName } from '@octokit/webhooks-types';
import type { App } from '../../core/kernel/app.js';
import type { SignedUp } from './accounts.js';
import type { Answer } from './api-types.js';
import { call } from './call.js';

const require = createRequire(import.meta.url);
const examples = require('@octokit/webhooks-examples') as Array<{
  name: WebhookEventName;
  examples: Array<WebhookEventMap[WebhookEventName]>;
}>;

/** A deep copy of the first example of an event (and action), e.g. `webhookExample('issues', 'opened')`. */
export function webhookExample<E extends WebhookEventName>(
  event: E,
  action?: string,
  pick: (e: WebhookEventMap[E]) => boolean = () => true,
): WebhookEventMap[E] {
  const group = examples.find((e) => e.name === event);
  if (!group) throw new Error(`no webhook examples for ${event}`);
  const found = (group.examples as Array<WebhookEventMap[E]>).find(
    (e) => (action === undefined || ('action' in e && e.action === action)) && pick(e),
  );
  if (!found) throw new Error(`no ${event}.${action} example`);
  return structuredClone(found);
}

export interface SignedDelivery {
  headers: Record<string, string>;
  rawBody: Buffer;
  deliveryId: string;
}

/** Signs a payload as the code host does. */
export function signPayload(
  event: string,
  payload: object,
  secret: string,
  deliveryId: string = randomUUID(),
): SignedDelivery {
  const rawBody = Buffer.from(JSON.stringify(payload));
  return {
    deliveryId,
    rawBody,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': deliveryId,
      'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`,
    },
  };
}

/** A real example of `event`.`action`, changed by `edit`, signed. */
export function signedDelivery<E extends WebhookEventName>(
  event: E,
  action: string | undefined,
  secret: string,
  edit?: (payload: WebhookEventMap[E]) => void,
  deliveryId?: string,
): SignedDelivery {
  const payload = webhookExample(event, action);
  edit?.(payload);
  return signPayload(event, payload, secret, deliveryId);
}

/** The whole install flow of the local host: install URL, its page's redirect, link. */
export async function installAndLink(app: App, owner: SignedUp): Promise<Answer<'POST', '/v1/codehost/installations'>> {
  const start = await call(app, owner, 'POST', '/v1/codehost/install');
  if (start.status !== 200) throw new Error(`install: ${start.status} ${JSON.stringify(start.body)}`);
  const url = new URL(String(start.body.url));
  const page = await app.server.inject({ method: 'GET', url: url.pathname + url.search });
  const back = new URL(String(page.headers.location));
  const res = await call(app, owner, 'POST', '/v1/codehost/installations', {
    installation_id: back.searchParams.get('installation_id'),
    state: back.searchParams.get('state'),
    setup_action: 'install',
  });
  if (res.status !== 201 && res.status !== 200) throw new Error(`link: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}
