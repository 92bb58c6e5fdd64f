/** A headline figure of the compact views (snapshots, fundamentals): latest value, change, stale flag. */
import * as z from 'zod';
import { IsoDateSchema } from './common';

const HeadlineLine = z
  .strictObject({
    part: z.string(),
    key: z.string(),
    label: z.string(),
    /** null when there is no value: the note says why (a multi-leg figure without a shared date, a figure USGS cannot calculate). */
    value: z.number().nullable(),
    /** A published bound stays a bound: "greater than" 140,000,000 is not 140,000,000. */
    bound: z.enum(['greater than', 'less than']).nullable(),
    unit: z.string(),
    /** null only for a figure with no value and no date of its own (a stale multi-leg figure). */
    as_of: IsoDateSchema.nullable(),
    change: z.number().nullable(),
    change_basis: z.enum(['week_over_week', 'previous_report', 'year_ago']).nullable(),
    quality: z.string().nullable(),
    derived: z.boolean(),
    stale: z.boolean(),
    /** What qualifies the figure: its scope (export sales: which destinations), or why it has no value. */
    note: z.string().nullable(),
  })
  .meta({ id: 'HeadlineLine', description: 'One fundamental figure (inventory level, balance-sheet line, crop condition …) with its change.' });

export { HeadlineLine };
