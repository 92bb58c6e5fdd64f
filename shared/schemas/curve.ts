/** Bodies of the curve family: a free explicit stub while indicative futures are off, else the licensed curve. */
import * as z from '../zod';
import { FreshnessClass, IsoDateSchema, ServedObservation } from './common';
import { QualitySchema } from '../observation/schema';

const CurveStub = z.strictObject({
  stub: z.literal(true),
  kind: z.enum(['curve', 'calendar_spread']),
  root: z.nullable(z.string()),
  reason: z.string(),
  enable: z.string(),
  charged: z.literal(false),
  alternatives: z.array(z.string()),
  observations: z.array(ServedObservation).check(z.length(0)),
});

const Provider = z.strictObject({ id: z.string(), name: z.string(), license_tag: z.string() });

const CurveBody = z.union([
  CurveStub,
  z.strictObject({
    stub: z.literal(false),
    root: z.string(),
    unit: z.string(),
    as_of: z.optional(IsoDateSchema),
    quality: QualitySchema,
    freshness_class: FreshnessClass,
    provider: Provider,
    order: z.string(),
    count: z.int().check(z.positive()),
    observations: z.array(ServedObservation),
  }),
]);

const CalendarSpreadBody = z.union([
  CurveStub,
  z.strictObject({
    stub: z.literal(false),
    root: z.string(),
    unit: z.string(),
    as_of: IsoDateSchema,
    method: z.strictObject({ formula: z.string(), description: z.string() }),
    provider: Provider,
    observation: ServedObservation,
    legs: z.array(z.strictObject({ instrument: z.string(), role: z.string(), observation: ServedObservation })),
  }),
]);

export { CurveBody, CalendarSpreadBody };
