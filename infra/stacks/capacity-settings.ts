/**
 * Request budgets of a stage. A paid x402 call is two requests (the unpaid one answered 402, then the
 * paid one), a batch voucher or a Pro call one; the stage throttle must hold them all for the target
 * rate, and anonymous traffic (no payment, no key) gets its own budget per client IP at the edge
 * (AWS WAF in front of CloudFront), so one scraper cannot 429 the paying customers.
 */

interface Throttle {
  rateLimit: number;
  burstLimit: number;
}

interface StageCapacity {
  /** The stage's default route throttle (API Gateway; the account-level quota is 10,000/s, burst 5,000, per region). */
  stage: Throttle;
  /** Each bundle route (snapshots, decision packs, history, MCP) on its own. */
  heavy: Throttle;
  /** Requests without payment or key one client IP may make in 5 minutes at the edge (WAF rate-based rule). */
  anonymousPerIpPer5Min: number;
  /** CloudFront + WAF in front of the API by default (-c edge=0|1 overrides). */
  edge: boolean;
  /** Requests in an hour above which an hour without money alarms (RevenueZeroAlarm). */
  revenueWatchRequestsPerHour: number;
  /** The batch settler's pass (shared/payment/batch/settle-settings.ts): open sales per query, claims and closings in flight. */
  settler: { pageSize: number; claimConcurrency: number; closeConcurrency: number };
}

/**
 * Per stage. Prod: 1,000 paid calls/s in each of the three lanes is 2,000 (exact) + 1,000 (batch)
 * + 1,000 (Pro) = 4,000 requests/s, under a 5,000/s stage limit with room for free documents; the
 * burst is the account's 5,000. Dev is a sandbox and staging a rehearsal: lower, so a test cannot
 * run up a bill.
 */
const STAGE_CAPACITY = Object.freeze({
  dev: {
    stage: { rateLimit: 100, burstLimit: 200 },
    heavy: { rateLimit: 20, burstLimit: 40 },
    anonymousPerIpPer5Min: 1_500,
    edge: false,
    revenueWatchRequestsPerHour: 1_000,
    settler: { pageSize: 1_000, claimConcurrency: 1, closeConcurrency: 4 },
  },
  staging: {
    stage: { rateLimit: 500, burstLimit: 1_000 },
    heavy: { rateLimit: 50, burstLimit: 100 },
    anonymousPerIpPer5Min: 1_500,
    edge: false,
    revenueWatchRequestsPerHour: 1_000,
    settler: { pageSize: 1_000, claimConcurrency: 1, closeConcurrency: 4 },
  },
  prod: {
    stage: { rateLimit: 5_000, burstLimit: 5_000 },
    heavy: { rateLimit: 200, burstLimit: 400 },
    anonymousPerIpPer5Min: 1_500,
    edge: true,
    revenueWatchRequestsPerHour: 1_000,
    // 10,000 batch calls/s is 6 M sales a pass: 120,000 closing transactions, 32 at once, and a
    // claim per 100 channels, 4 at once, inside the 9-minute timeout (npm run capacity).
    settler: { pageSize: 2_000, claimConcurrency: 4, closeConcurrency: 32 },
  },
} satisfies Record<string, StageCapacity>);

export { STAGE_CAPACITY };
export type { StageCapacity, Throttle };
