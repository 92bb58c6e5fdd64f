/** A headline figure of the compact views (snapshots, fundamentals): latest value, change, stale flag. */
import * as z from '../zod';
import { IsoDateSchema } from './common';

const HeadlineLine = z
  .strictObject({
    part: z.string(),
    key: z.string(),
    label: z.string(),
    /** null when there is no value: the note says why (a multi-leg figure without a shared date, a figure USGS cannot calculate). */
    value: z.nullable(z.number()),
    /** A published bound stays a bound: "greater than" 140,000,000 is not 140,000,000. */
    bound: z.nullable(z.enum(['greater than', 'less than'])),
    unit: z.string(),
    /** null only for a figure with no value and no date of its own (a stale multi-leg figure). */
    as_of: z.nullable(IsoDateSchema),
    change: z.nullable(z.number()),
    change_basis: z.nullable(z.enum(['week_over_week', 'previous_report', 'year_ago'])),
    quality: z.nullable(z.string()),
    derived: z.boolean(),
    stale: z.boolean(),
    /** What qualifies the figure: its scope (export sales: which destinations), or why it has no value. */
    note: z.nullable(z.string()),
  })
  .register(z.globalRegistry, {
    id: 'HeadlineLine',
    description: 'One fundamental figure (inventory level, balance-sheet line, crop condition …) with its change.',
  });

export { HeadlineLine };
