/** The Pro plans SPEC.md sells: 19 USD a month or 180 USD a year, 3,000 credits a month either way. */
const PLANS = Object.freeze({
  monthly: { id: 'monthly', priceUsd: '19.00', months: 1, creditsPerMonth: 3000 },
  yearly: { id: 'yearly', priceUsd: '180.00', months: 12, creditsPerMonth: 3000 },
} as const);

type PlanId = keyof typeof PLANS;
const PLAN_IDS = Object.keys(PLANS) as PlanId[];

export { PLANS, PLAN_IDS };
export type { PlanId };
