import { describe, expect, it } from 'vitest';
import { deriveFrom } from '../../shared/observation/derive';
import type { Observation } from '../../shared/observation/schema';

const base: Observation = {
  instrument: 'crude_ex_spr',
  value: 420299,
  unit: 'Mbbl',
  as_of: '2026-02-06',
  observed_at: '2026-02-06T12:00:00.000Z', // Friday 07:00 EST, the WPSR week's end
  freshness_class: 'weekly',
  quality: 'official',
  derived: false,
  source: { name: 'EIA', series_id: 'WCESTUS1', url: null },
  license_tag: 'public-domain (US government work)',
  provenance: { retrieved_at: '2026-02-11T15:45:00.000Z', cache_hit: false, cache_ttl_s: 300 },
  published_at: '2026-02-11T15:30:00.000Z',
  next_release_at: '2026-02-19T17:00:00.000Z',
  attributes: {},
};

describe('deriveFrom', () => {
  it("keeps the base's observed_at and release times: a change of a week describes that week's end", () => {
    const d = deriveFrom(base, { value: 8530, unit: 'Mbbl', metric: 'week_over_week_change' });
    expect(d).toMatchObject({ observed_at: '2026-02-06T12:00:00.000Z', published_at: '2026-02-11T15:30:00.000Z', quality: 'derived' });
    expect(deriveFrom({ ...base, observed_at: null }, { value: 1, unit: 'Mbbl', metric: 'x' })?.observed_at).toBeNull();
  });
});
