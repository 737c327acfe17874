import Joi from 'joi';
import type { Server } from '@hapi/hapi';
import type { Knex } from 'knex';
import type { Bus } from '../bus/bus.js';

const check = Joi.object({ ok: Joi.boolean().required(), latency_ms: Joi.number().required(), detail: Joi.string() })
  .required()
  .id('HealthCheck');

/** Liveness (the process answers) and readiness (database and bus reachable). */
export function registerHealthRoutes(server: Server, deps: { db: Knex; bus: Bus }): void {
  server.route([
    {
      method: 'GET',
      path: '/v1/health',
      options: {
        id: 'getHealth',
        tags: ['health'],
        description: 'Liveness: the process is up',
        auth: false,
        response: {
          status: {
            200: Joi.object({ status: Joi.string().valid('ok').required(), uptime_s: Joi.number().required() }).id(
              'Liveness',
            ),
          },
        },
        handler: () => ({ status: 'ok', uptime_s: Math.round(process.uptime()) }),
      },
    },
    {
      method: 'GET',
      path: '/v1/health/ready',
      options: {
        id: 'getReadiness',
        tags: ['health'],
        description: 'Readiness: database and bus are reachable (503 when not)',
        auth: false,
        response: {
          status: {
            200: Joi.object({
              status: Joi.string().valid('ok', 'unavailable').required(),
              checks: Joi.object({ database: check, bus: check }).required(),
            }).id('Readiness'),
          },
        },
        handler: async (_request, h) => {
          const database = await timed(async () => {
            await deps.db.raw('select 1');
            return { ok: true };
          });
          const bus = await timed(() => deps.bus.health());
          const ok = database.ok && bus.ok;
          return h.response({ status: ok ? 'ok' : 'unavailable', checks: { database, bus } }).code(ok ? 200 : 503);
        },
      },
    },
  ]);
}

async function timed(
  fn: () => Promise<{ ok: boolean; detail?: string }>,
): Promise<{ ok: boolean; latency_ms: number; detail?: string }> {
  const t0 = performance.now();
  try {
    const r = await Promise.race([
      fn(),
      new Promise<{ ok: boolean; detail: string }>((resolve) =>
        setTimeout(() => resolve({ ok: false, detail: 'timed out after 2000 ms' }), 2000).unref(),
      ),
    ]);
    return { ...r, latency_ms: Math.round(performance.now() - t0) };
  } catch (err) {
    return { ok: false, detail: (err as Error).message, latency_ms: Math.round(performance.now() - t0) };
  }
}
