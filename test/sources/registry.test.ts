import { SYNTHETIC_LICENSE } from '../../shared/sources/usda-nass-crop-progress';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ObservationSchema } from '../../shared/observation/schema';
import * as z from '../../shared/zod';
import { ADAPTERS } from '../../shared/sources/adapters';
import { SAMPLES_DIR } from '../../shared/sources/common';
import { SOURCES } from '../../shared/sources/registry';
import { normalizeCtx } from '../helpers/sources';

const StoredSchema = z.omit(ObservationSchema, { provenance: true });

describe('source registry', () => {
  it('gives every source exactly one adapter, with the same definition', () => {
    expect(Object.keys(ADAPTERS).sort()).toEqual(SOURCES.map((s) => s.id).sort());
    for (const s of SOURCES) expect(ADAPTERS[s.id]!.def).toBe(s);
  });

  it('names a license, a real https publication URL and a positive staleness bound for each source', () => {
    for (const s of SOURCES) {
      expect(s.licenseTag, s.id).toMatch(/public-domain|CC BY 4\.0/);
      expect(s.url, s.id).toMatch(/^https:\/\//);
      expect(s.maxAgeHours, s.id).toBeGreaterThan(0);
    }
  });

  it.each(SOURCES.map((s) => s.id))('%s: bundled samples exist, are documented, and normalise to valid observations', async (id) => {
    expect(existsSync(`${SAMPLES_DIR}${id}/README.md`), `${id} samples README`).toBe(true);
    const adapter = ADAPTERS[id]!;
    const items = (await adapter.samples()).flatMap((p) => adapter.toItems(p, normalizeCtx(adapter.def)));
    expect(items.length).toBeGreaterThan(0);
    for (const { observation } of items) {
      const r = StoredSchema.safeParse(observation);
      expect(r.success, `${id}: ${JSON.stringify(r.success ? '' : r.error.issues)}`).toBe(true);
      // A synthetic sample says so in its license tag; real figures carry the source's license.
      expect(observation.license_tag).toBe(observation.attributes.synthetic === true ? SYNTHETIC_LICENSE : adapter.def.licenseTag);
      expect(observation.derived).toBe(observation.quality === 'derived');
    }
  });
});
