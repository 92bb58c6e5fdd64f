/** Bodies of the snapshot family: one sector's headline figures, or all sectors with FX and staleness. */
import * as z from 'zod';
import { HealthStatus, IsoDateSchema, FreshnessClass, missingOf, Sector, ServedObservation, SourceFreshness } from './common';
import { CropProgressBody, ExportSalesBody, UsgsBody, WasdeBody } from './fundamentals';
import { InventoryBundleBody } from './inventory';
import { SpreadBody } from './spreads';

const Staleness = z
  .strictObject({
    status: HealthStatus,
    stale_sources: z.array(z.string()),
    oldest_observation: z.strictObject({ instrument: z.string(), as_of: IsoDateSchema, freshness_class: FreshnessClass }).nullable(),
    rule: z.string(),
    sources: z.array(SourceFreshness),
  })
  .meta({ id: 'Staleness', description: 'Freshness of the sources behind the answer.' });

/** Each sector's key fundamentals: the body of their own route, null when none is stored (then listed under missing). */
const SectorFundamentals = z.strictObject({
  inventories: InventoryBundleBody.nullable().optional(),
  crack: SpreadBody.nullable().optional(),
  usgs: UsgsBody.nullable().optional(),
  wasde: WasdeBody.nullable().optional(),
  crop_progress: CropProgressBody.nullable().optional(),
  export_sales: ExportSalesBody.nullable().optional(),
});

const SectorPart = z
  .strictObject({
    sector: Sector,
    as_of: IsoDateSchema.nullable(),
    instruments: z.strictObject({ count: z.number().int().nonnegative(), observations: z.array(ServedObservation) }),
    fundamentals: SectorFundamentals,
    missing: z.array(missingOf('input')),
  })
  .meta({ id: 'SectorSnapshot', description: 'One sector: latest prices, key fundamentals and what is missing.' });

// A derived schema inherits its parent's registry id: give it its own.
const SnapshotBody = SectorPart.extend({ staleness: Staleness }).meta({
  id: 'Snapshot',
  description: 'The snapshot of one sector, with the staleness of its sources.',
});

const SnapshotAllBody = z.strictObject({
  sector: z.literal('all'),
  as_of: IsoDateSchema.nullable(),
  sectors: z.array(SectorPart),
  fx: z.strictObject({ count: z.number().int().nonnegative(), observations: z.array(ServedObservation), missing: z.array(missingOf('input')) }),
  staleness: Staleness,
});

export { SnapshotBody, SnapshotAllBody };
