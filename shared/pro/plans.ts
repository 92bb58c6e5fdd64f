/** The Pro plans SPEC.md sells: 19 USD a month or 180 USD a year, 3,000 credits a month either way. */
const PLANS = Object.freeze({
  monthly: { id: 'monthly', priceUsd: '19.00', months: 1, creditsPerMonth: 3000 },
  yearly: { id: 'yearly', priceUsd: '180.00', months: 12, creditsPerMonth: 3000 },
} as const);

type PlanId = keyof typeof PLANS;
const PLAN_IDS = Object.keys(PLANS) as PlanId[];

/** The same day-of-month `months` later in UTC (31 Jan + 1 month = 28/29 Feb). */
const addMonths = (iso: string, months: number): string => {
  const d = new Date(iso);
  const target = new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + months, 1, d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()));
  const lastDay = new Date(Date.UTC(target.getUTCFullYear(), target.getUTCMonth() + 1, 0)).getUTCDate();
  target.setUTCDate(Math.min(d.getUTCDate(), lastDay));
  return target.toISOString();
};

export { PLANS, PLAN_IDS, addMonths };
export type { PlanId };
