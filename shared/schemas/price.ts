/** Bodies of the price family: latest price, bundle, history, FX. */
import * as z from '../zod';
import { FreshnessClass, IsoDateSchema, missingOf, ServedObservation } from './common';

const PricesBundleBody = z.strictObject({
  requested: z.array(z.string()),
  count: z.int().check(z.nonnegative()),
  observations: z.array(ServedObservation),
  missing: z.array(missingOf('instrument')),
});

const DatedValue = z.strictObject({ as_of: IsoDateSchema, value: z.number() });

const HistoryBody = z.strictObject({
  instrument: z.string(),
  unit: z.string(),
  freshness_class: FreshnessClass,
  start: IsoDateSchema,
  end: IsoDateSchema,
  frequency: z.enum(['native', 'weekly', 'monthly']),
  aggregation: z.string(),
  order: z.string(),
  /** Points in the whole window (after resampling); `returned` of them are on this page. */
  total: z.int().check(z.nonnegative()),
  returned: z.int().check(z.nonnegative()),
  truncated: z.boolean(),
  /** Cursor of the next page (the last as_of of this one), null on the last page. */
  next: z.nullable(IsoDateSchema),
  window_capped: z.boolean(),
  summary: z.nullable(
    z.strictObject({ first: DatedValue, last: DatedValue, min: DatedValue, max: DatedValue, change: z.number(), change_pct: z.nullable(z.number()) }),
  ),
  observations: z.array(ServedObservation),
});

export { PricesBundleBody, HistoryBody };
