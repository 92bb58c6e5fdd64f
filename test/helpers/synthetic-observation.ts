import type { StoredObservation } from '../../shared/observation/schema';

/**
 * A synthetic WTI observation for store and vintage tests (labelled as such in `source.name`):
 * the fields a stored observation carries, none of them a publication's figure.
 */
const syntheticObservation = (as_of: string, value: number, over: Partial<StoredObservation> = {}): StoredObservation => ({
  instrument: 'CL',
  value,
  unit: 'USD/bbl',
  as_of,
  observed_at: null,
  freshness_class: 'eod',
  quality: 'official',
  derived: false,
  source: { name: 'synthetic test figure', series_id: 'TEST', url: null },
  license_tag: 'test',
  retrieved_at: '2026-01-01T00:00:00.000Z',
  published_at: null,
  next_release_at: null,
  attributes: {},
  ...over,
});

export { syntheticObservation };
