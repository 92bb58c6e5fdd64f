/** Assertions shared by route tests: the observation contract and the error body. */
import { expect } from 'vitest';
import { ObservationSchema } from '../../shared/observation/schema';

const OBSERVATION_FIELDS = [
  'instrument',
  'value',
  'unit',
  'as_of',
  'observed_at',
  'freshness_class',
  'quality',
  'derived',
  'source',
  'license_tag',
  'provenance',
  'published_at',
  'next_release_at',
  'attributes',
];

/** Every contract field present (null allowed), and the schema satisfied. */
const expectObservation = (o: unknown): void => {
  expect(Object.keys(o as object).sort()).toEqual([...OBSERVATION_FIELDS].sort());
  const r = ObservationSchema.safeParse(o);
  expect(r.success, r.success ? '' : JSON.stringify(r.error.issues)).toBe(true);
};

/** DESIGN.md's error body with the expected code. */
const expectError = (res: { status: number; body: any; headers: Headers }, status: number, code: string): void => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/application\/json/);
  expect(res.body.error).toMatchObject({ code, retryable: expect.any(Boolean), request_id: expect.any(String), message: expect.any(String) });
  expect(res.body.error.details).toBeTypeOf('object');
};

export { expectObservation, expectError };
