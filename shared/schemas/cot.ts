/** Body of GET /v1/cot/{code}: managed-money positioning with its 3-year range. */
import * as z from '../zod';
import { IsoDateSchema, MaybeObservation, MethodTexts, ServedObservation } from './common';

const CotBody = z.strictObject({
  instrument: z.string(),
  meaning: z.string(),
  cftc_code: z.string(),
  market: z.nullable(z.string()),
  report: z.string(),
  as_of: IsoDateSchema,
  /** The latest report is older than the weekly cadence allows (method.stale). */
  stale: z.boolean(),
  /** The as_of (a Tuesday) the next report should carry. */
  expected_next_as_of: IsoDateSchema,
  method: MethodTexts,
  managed_money: z.strictObject({
    long: MaybeObservation,
    short: MaybeObservation,
    spreading: MaybeObservation,
    open_interest: MaybeObservation,
    net: ServedObservation,
    net_pct_oi: MaybeObservation,
    net_change_wow: MaybeObservation,
  }),
  range_3y: z.strictObject({ percentile: MaybeObservation, index: MaybeObservation, min: MaybeObservation, max: MaybeObservation }),
  history: z.strictObject({
    years_required: z.int(),
    window_start: IsoDateSchema,
    window_end: IsoDateSchema,
    reports_in_window: z.int(),
    reports_expected: z.int(),
    covered: z.boolean(),
    note: z.string(),
  }),
  recent: z.array(ServedObservation),
});

export { CotBody };
