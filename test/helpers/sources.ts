/** Helpers for adapter tests: payloads from text and a normalize context. */
import type { NormalizeContext, Payload, SourceDef } from '../../shared/sources/types';

const payload = (name: string, text: string | Uint8Array, retrievedAt = '2026-01-01T00:00:00.000Z'): Payload => ({
  name,
  body: typeof text === 'string' ? new TextEncoder().encode(text) : text,
  retrievedAt,
});

const normalizeCtx = (def: SourceDef, nextReleaseAt: string | null = '2026-12-01T15:30:00.000Z'): NormalizeContext => ({
  def,
  nextReleaseAt,
  now: new Date('2026-11-21T12:00:00Z'),
});

const text = (p: Payload) => new TextDecoder().decode(p.body);

export { payload, normalizeCtx, text };
