/** A billing period: [start, end). */
export interface Period {
  start: Date;
  end: Date;
}

/** The calendar month (UTC) holding `now`: the period of organizations without a subscription. */
export function calendarMonth(now: Date): Period {
  const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
  return { start, end };
}

/**
 * The period usage, credits and the spend cap count in: the subscription's current period while
 * `now` is inside it, else the calendar month.
 */
export function currentPeriod(now: Date, subscription: { start: Date | null; end: Date | null }): Period {
  const { start, end } = subscription;
  if (start && end && start.getTime() <= now.getTime() && now.getTime() < end.getTime()) return { start, end };
  return calendarMonth(now);
}

export const DAY_MS = 86_400_000;

export function addDays(d: Date, days: number): Date {
  return new Date(d.getTime() + days * DAY_MS);
}

/** Whole days from `now` until `until`, rounded up, never negative. */
export function daysLeft(until: Date | null, now: Date): number {
  if (!until) return 0;
  return Math.max(0, Math.ceil((until.getTime() - now.getTime()) / DAY_MS));
}
