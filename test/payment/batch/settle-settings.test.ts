/** The settler's pass settings from its environment: defaults when unset, a refusal for a value that would lift a bound. */
import { describe, expect, it } from 'vitest';
import { settlePassSettings } from '../../../shared/payment/batch/settle-settings';

describe('batch settler pass settings', () => {
  it('reads page size and bounds; an unset one takes its default (one claim at a time, four closings, pages of 1,000)', () => {
    expect(settlePassSettings({ SETTLE_PAGE_SIZE: '2000', SETTLE_CLAIM_CONCURRENCY: '4', SETTLE_CLOSE_CONCURRENCY: '32' })).toMatchObject({
      pageSize: 2000,
      claimConcurrency: 4,
      closeConcurrency: 32,
    });
    expect(settlePassSettings({})).toMatchObject({ pageSize: 1000, claimConcurrency: 1, closeConcurrency: 4 });
  });

  it.each(['0', '-1', '2.5', 'many', '10001'])('refuses %j with the variable it is in', (raw) => {
    expect(() => settlePassSettings({ SETTLE_CLOSE_CONCURRENCY: raw })).toThrow(/SETTLE_CLOSE_CONCURRENCY must be a whole number/);
  });
});
