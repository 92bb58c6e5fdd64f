/**
 * Helpers every adapter shares: building a complete stored observation, reading the bundled
 * samples, and fetching a live document with a timeout.
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { FreshnessClass } from '../catalog/instruments';
import type { AttributeValue, Quality, StoredObservation } from '../observation/schema';
import { observedAtOf } from './observed-at';
import { releaseOfPeriod } from './schedule';
import { SourceFormatError, type LiveContext, type NormalizeContext, type Payload } from './types';

interface ObservationFields {
  instrument: string;
  value: number;
  unit: string;
  as_of: string;
  freshness_class: FreshnessClass;
  /** official unless converted (derived) or indicative. */
  quality?: Quality;
  series_id: string;
  /** Overrides the source's publication URL (e.g. a per-series page). */
  url?: string;
  retrievedAt: string;
  /** Absent: from the source's observed_at rule (registry), labelled in attributes.observed_at_basis. */
  observed_at?: string | null;
  /** Absent: the release of the as_of period under the source's publisher calendar (null without one). */
  published_at?: string | null;
  /** With a published_at the adapter gives: whether a calendar rule dated it rather than the publication. */
  published_at_estimated?: boolean;
  attributes?: Record<string, AttributeValue>;
}

/**
 * A complete stored observation of a source, with every contract field set.
 * `derived` follows quality: a converted figure is `quality: "derived"` and `derived: true`.
 * observed_at and published_at come from the registry's rules unless the adapter read them from
 * the payload; a calendar date outside the publisher's verified schedule is marked
 * `attributes.published_at_estimated: true`.
 */
const makeObservation = (ctx: NormalizeContext, f: ObservationFields): StoredObservation => {
  const quality = f.quality ?? 'official';
  const observed = f.observed_at !== undefined ? null : observedAtOf(ctx.def, f.instrument, f.as_of);
  const release = f.published_at !== undefined ? null : releaseOfPeriod(ctx.def.schedule, f.as_of);
  return {
    instrument: f.instrument,
    value: f.value,
    unit: f.unit,
    as_of: f.as_of,
    observed_at: observed ? observed.at : (f.observed_at ?? null),
    freshness_class: f.freshness_class,
    quality,
    derived: quality === 'derived',
    source: { name: ctx.def.name, series_id: f.series_id, url: f.url ?? ctx.def.url },
    license_tag: ctx.def.licenseTag,
    retrieved_at: f.retrievedAt,
    published_at: release ? release.at : (f.published_at ?? null),
    next_release_at: ctx.nextReleaseAt,
    attributes: {
      ...(observed ? { observed_at_basis: observed.basis } : {}),
      ...(release ? { published_at_estimated: release.estimated } : {}),
      ...(f.published_at_estimated !== undefined ? { published_at_estimated: f.published_at_estimated } : {}),
      ...f.attributes,
    },
  };
};

const SAMPLES_DIR = fileURLToPath(new URL('./samples/', import.meta.url));

/**
 * The bundled replay samples of a source (shared/sources/samples/<sourceId>/<file>).
 * @param recordedAt when the sample's figures were current (stands in for retrieved_at)
 */
const readSamples = async (sourceId: string, files: readonly string[], recordedAt: string): Promise<Payload[]> =>
  Promise.all(
    files.map(async (file) => ({
      name: `${sourceId}/${file}`,
      body: new Uint8Array(await readFile(`${SAMPLES_DIR}${sourceId}/${file}`)),
      retrievedAt: recordedAt,
    })),
  );

/** Upstream HTTP failures (timeouts, 5xx) are not format errors: the run fails, data stays. */
class SourceFetchError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SourceFetchError';
  }
}

const FETCH_TIMEOUT_MS = 30_000;

/**
 * Fetches one live document.
 * @param redact strings to remove from error messages (API keys in query strings)
 */
const fetchPayload = async (ctx: LiveContext, url: string, name: string, redact: string[] = []): Promise<Payload> => {
  const clean = (s: string) => redact.filter(Boolean).reduce((acc, r) => acc.split(r).join('***'), s);
  let res: Response;
  try {
    res = await ctx.fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS) });
  } catch (err) {
    throw new SourceFetchError(`${name}: request to ${clean(url)} failed: ${clean(String((err as Error).message ?? err))}`, { cause: err });
  }
  if (!res.ok) throw new SourceFetchError(`${name}: HTTP ${res.status} from ${clean(url)}`);
  const body = new Uint8Array(await res.arrayBuffer());
  if (body.length === 0) throw new SourceFormatError(`${name}: empty body from ${clean(url)}`);
  return { name, body, retrievedAt: ctx.now.toISOString() };
};

/** Decode a payload as text (UTF-8 unless told; USGS is windows-1252). BOMs are dropped. */
const payloadText = (p: Payload, encoding = 'utf-8'): string => {
  const text = new TextDecoder(encoding).decode(p.body);
  if (text.trim() === '') throw new SourceFormatError(`${p.name}: empty payload`);
  return text.replace(/^\uFEFF/, '');
};

/** Parse a published number ("1,230", "72.53"); throws SourceFormatError on anything else. */
const parseNumber = (raw: unknown, where: string): number => {
  const s =
    typeof raw === 'number'
      ? String(raw)
      : String(raw ?? '')
          .replace(/,/g, '')
          .trim();
  const n = Number(s);
  if (s === '' || !Number.isFinite(n)) throw new SourceFormatError(`${where}: not a number: ${JSON.stringify(raw)}`);
  return n;
};

export { makeObservation, readSamples, fetchPayload, payloadText, parseNumber, SourceFetchError, SAMPLES_DIR };
export type { ObservationFields };
