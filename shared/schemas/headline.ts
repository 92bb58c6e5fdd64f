/** A headline figure of the compact views (snapshots, fundamentals): latest value, change, stale flag. */
import * as z from 'zod';
import { IsoDateSchema } from './common';

const HeadlineLine = z
  .strictObject({
    part: z.string(),
    key: z.string(),
    label: z.string(),
    value: z.number().nullable(),
    unit: z.string(),
    as_of: IsoDateSchema,
    change: z.number().nullable(),
    change_basis: z.enum(['week_over_week', 'previous_report', 'year_ago']).nullable(),
    quality: z.string().nullable(),
    derived: z.boolean(),
    stale: z.boolean(),
  })
  .meta({ id: 'HeadlineLine', description: 'One fundamental figure (inventory level, balance-sheet line, crop condition …) with its change.' });

export { HeadlineLine };
