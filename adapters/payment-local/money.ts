// Money and calendar arithmetic of the simulated provider (pure).

export const round2 = (v: number) => Math.round(v * 100) / 100;

/** The share of a monthly amount for what is left of the period (the simulated provider's own proration). */
export function prorate(
  monthlyDelta: number,
  sub: { currentPeriodStart: string; currentPeriodEnd: string },
  now: Date,
): number {
  const start = new Date(sub.currentPeriodStart).getTime();
  const end = new Date(sub.currentPeriodEnd).getTime();
  const left = Math.min(1, Math.max(0, (end - now.getTime()) / Math.max(1, end - start)));
  return round2(monthlyDelta * left);
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * 86_400_000);
}

export function addMonths(d: Date, months: number): Date {
  const r = new Date(d);
  r.setUTCMonth(r.getUTCMonth() + months);
  return r;
}
