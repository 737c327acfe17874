import { DemoRunModel } from '../models.js';
import { type OnboardingDeps } from './deps.js';
import { iso } from '../../../core/http/times.js';

/** Nearest-rank percentile of sorted values (p in 0..100). */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

/**
 * Staff metrics of the onboarding: signups in the window, demos started in it (status counts,
 * cases, cost) and the time from an organization's signup to its first diagnosis of a demo.
 */
export class MetricsService {
  constructor(private readonly d: OnboardingDeps) {}

  async compute(q: { from?: Date; to?: Date }) {
    const to = q.to ?? this.d.clock();
    const from = q.from ?? new Date(to.getTime() - 30 * 86_400_000);
    const db = this.d.db;
    const signups = Number(
      (
        (await db('organizations')
          .where('created_at', '>=', from)
          .where('created_at', '<', to)
          .count({ n: '*' })
          .first()) as { n: string | number } | undefined
      )?.n ?? 0,
    );
    const runs = (await DemoRunModel.query(db)
      .acrossOrgs('staff onboarding metrics')
      .join('organizations as o', 'o.id', 'onboarding_demo_runs.org_id')
      .where('onboarding_demo_runs.created_at', '>=', from)
      .where('onboarding_demo_runs.created_at', '<', to)
      .select('onboarding_demo_runs.*', 'o.created_at as signup_at')
      .orderBy([
        { column: 'onboarding_demo_runs.created_at', order: 'desc' },
        { column: 'onboarding_demo_runs.id', order: 'desc' },
      ])) as Array<DemoRunModel & { signup_at: Date }>;
    const managed = runs.filter((r) => r.mode === 'managed');
    const seconds = (r: DemoRunModel & { signup_at: Date }) =>
      r.first_diagnosis_at
        ? Math.max(0, Math.round((new Date(r.first_diagnosis_at).getTime() - new Date(r.signup_at).getTime()) / 1000))
        : null;
    const times = managed
      .map(seconds)
      .filter((s): s is number => s !== null)
      .sort((a, b) => a - b);
    const target = this.d.options.targetSeconds;
    const byCase = new Map<string, number>();
    for (const r of managed) if (r.case_kind) byCase.set(r.case_kind, (byCase.get(r.case_kind) ?? 0) + 1);
    const total = managed.reduce((s, r) => s + Number(r.cost_usd), 0);
    const round = (n: number) => Math.round(n * 10_000) / 10_000;
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      signups,
      demos_started: managed.length,
      demos_completed: managed.filter((r) => r.status === 'completed').length,
      demos_failed: managed.filter((r) => r.status === 'failed').length,
      time_to_first_diagnosis: {
        count: times.length,
        median_s: percentile(times, 50),
        p90_s: percentile(times, 90),
        under_target_ratio: times.length ? round(times.filter((s) => s <= target).length / times.length) : 0,
      },
      target_s: target,
      by_case: [...byCase.entries()]
        .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
        .map(([kind, count]) => ({ kind, count })),
      cost: { total_usd: round(total), average_usd: managed.length ? round(total / managed.length) : 0 },
      recent: managed.slice(0, 20).map((r) => ({
        org_id: r.org_id,
        status: r.status,
        case_kind: r.case_kind,
        cost_usd: Number(r.cost_usd),
        signup_at: iso(r.signup_at),
        first_diagnosis_at: iso(r.first_diagnosis_at),
        seconds_to_first_diagnosis: seconds(r),
      })),
    };
  }
}
