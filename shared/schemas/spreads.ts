/** Body of the crack, crush and basis spreads: the spread as a derived observation, its method and its legs. */
import * as z from 'zod';
import { IsoDateSchema, MethodTexts, ServedObservation } from './common';

const SpreadBody = z
  .strictObject({
    spread: z.string(),
    name: z.string(),
    instrument: z.string(),
    unit: z.string(),
    as_of: IsoDateSchema,
    aligned: z.boolean(),
    method: z.strictObject({
      formula: z.string(),
      description: z.string(),
      legs: z.array(z.strictObject({ instrument: z.string(), role: z.string(), coefficient: z.number(), as_of: IsoDateSchema })),
      coefficients: z.string(),
      rules: MethodTexts,
    }),
    observation: ServedObservation,
    legs: z.array(z.strictObject({ instrument: z.string(), role: z.string(), observation: ServedObservation })),
  })
  .meta({ id: 'Spread', description: 'A spread as a derived observation, with its method and legs.' });

export { SpreadBody };
