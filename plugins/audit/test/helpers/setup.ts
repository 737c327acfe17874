import type { Test } from 'tap';
import type { App } from '../../../../core/kernel/app.js';
import { startTestApp } from '../../../../test/helpers/app.js';
import type { StreamDelivery } from '../../services/delivery.js';

export const json = <T = Record<string, unknown>>(res: { payload: string }): T => JSON.parse(res.payload) as T;

export async function setPlan(app: App, orgId: string, plan: string): Promise<void> {
  await app.db('organizations').where({ id: orgId }).update({ plan });
}

/** A test service with the audit stream allowed to reach local peers. */
export async function auditApp(t: Test, stream: Record<string, unknown> = {}): Promise<App> {
  return startTestApp(t, {
    security: { allowLoopbackFetch: true },
    plugins: { audit: { options: { stream: { backoffMs: [1000, 5000], timeoutMs: 3000, ...stream } } } },
  });
}

export const deliveryOf = (app: App) => app.container.resolve<StreamDelivery>('auditStreamDelivery');

/** Pretends time went by, so a stream waiting out its back-off is due again. */
export async function skipBackoff(app: App): Promise<void> {
  await app.db('audit_streams').update({ next_attempt_at: null });
}
