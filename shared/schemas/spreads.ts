/** Body of the crack, crush and basis spreads: the spread as a derived observation, its method and its legs. */
import * as z from '../zod';
import { IsoDateSchema, MethodTexts, ServedObservation } from './common';

const SpreadMethod = z.strictObject({
  formula: z.string(),
  description: z.string(),
  legs: z.array(z.strictObject({ instrument: z.string(), role: z.string(), coefficient: z.number(), as_of: IsoDateSchema })),
  coefficients: z.string(),
  rules: MethodTexts,
});

const SpreadBody = z
  .strictObject({
    spread: z.string(),
    name: z.string(),
    instrument: z.string(),
    unit: z.string(),
    as_of: IsoDateSchema,
    method: SpreadMethod,
    observation: ServedObservation,
    legs: z.array(z.strictObject({ instrument: z.string(), role: z.string(), observation: ServedObservation })),
  })
  .register(z.globalRegistry, { id: 'Spread', description: 'A spread as a derived observation on the date its legs share, with its method and legs.' });

/** A spread whose legs share no date within their cadence, as snapshots list it: no value, and why. */
const StaleSpreadBody = z
  .strictObject({
    spread: z.string(),
    name: z.string(),
    instrument: z.string(),
    unit: z.string(),
    as_of: z.null(),
    value: z.null(),
    stale: z.literal(true),
    reason: z.string(),
    method: SpreadMethod,
    /** Each leg's newest stored observation. */
    legs: z.array(z.strictObject({ instrument: z.string(), role: z.string(), observation: ServedObservation })),
  })
  .register(z.globalRegistry, { id: 'StaleSpread', description: 'A spread with no value: no date its legs share lies within their cadence.' });

export { SpreadBody, StaleSpreadBody };
