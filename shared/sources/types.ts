/**
 * The adapter shape of every source (DESIGN.md "Sources"):
 *
 *   fetch (injected) -> parse (pure) -> normalize to observations -> idempotent write -> run status
 *
 * An adapter never touches the store: the runner does, after every payload parsed cleanly, so a
 * half-parsed release writes nothing.
 */
import type { PublisherId } from '../calendar';
import type { Config } from '../config';
import type { EnvKey } from '../config/env-keys';
import type { Cadence } from '../observation/staleness';
import type { SeriesItem, SeriesNote } from '../store/observation-store';

/** A release schedule: local wall-clock time in the publisher's time zone. */
interface ReleaseSchedule {
  /** Minutes past the hour, hour (0-23), in `timeZone`. */
  minute: number;
  hour: number;
  /** ISO weekdays 1 = Monday … 7 = Sunday; absent = every day the other fields allow. */
  weekdays?: readonly number[];
  /** Days of month (1-31); absent = any. */
  monthDays?: readonly number[];
  /** Months (1-12); absent = any. */
  months?: readonly number[];
  /** Explicit release dates (YYYY-MM-DD) for publishers with a published calendar (WASDE). */
  dates?: readonly string[];
  timeZone: string;
  /**
   * Minutes after the release at which ingestion runs (default INGEST_LAG_MINUTES): a run at the
   * release minute can still read the previous release and call it fresh.
   */
  ingestLagMinutes?: number;
  /**
   * The publisher calendar (shared/calendar) that gives the actual release of each reference
   * period, holiday shifts included: next_release_at, published_at and /v1/calendar come from it;
   * the fields above only say when the ingestion runs.
   */
  calendar: PublisherId;
}

/**
 * What moment an observation describes (`observed_at`), per source: a time the publisher states
 * on the as_of day, the end of the as_of day (a reference week's last day, or a daily price whose
 * assessment time is not stated), the end of the month or year a figure covers, or none.
 * `basis` says which, and is served as `attributes.observed_at_basis`.
 */
type ObservedAtRule =
  | { kind: 'stated-time'; hour: number; minute: number; timeZone: string; basis: string }
  | { kind: 'end-of-day'; timeZone: string; basis: string }
  | { kind: 'end-of-month'; basis: string }
  | { kind: 'end-of-year'; basis: string }
  | { kind: 'none'; basis: string };

/** Registry entry of one source: metadata only, no code that fetches or parses. */
interface SourceDef {
  /** Stable id: META#<id>, ingest CLI name, Lambda name suffix. */
  readonly id: string;
  /** Publisher as shown in `source.name`. */
  readonly name: string;
  /** License tag on every observation of the source. */
  readonly licenseTag: string;
  /** The real publication a person can open. */
  readonly url: string;
  /** What it feeds, e.g. "CL BZ NG HO RB spot prices". */
  readonly feeds: string;
  readonly schedule: ReleaseSchedule;
  /** When it is released, as a person would say it (/v1/calendar, the ingestion schedules), e.g. "Wednesdays 10:30 ET". */
  readonly releaseText: string;
  /** What moment its observations describe; `observedAtByInstrument` overrides it per instrument. */
  readonly observedAt: ObservedAtRule;
  readonly observedAtByInstrument?: Readonly<Record<string, ObservedAtRule>>;
  /** How often its figures are published: what /health and every view judge their staleness by. */
  readonly cadence: Cadence;
  /** Hours after which the last success is stale (cadence plus grace). */
  readonly maxAgeHours: number;
  /** An API key the live mode needs; without it a live run is skipped, not failed. */
  readonly requiresKey?: EnvKey;
}

/** What the read path needs of a source (releases.ts): the rest of its definition is ingestion's. */
type SourceRelease = Pick<SourceDef, 'id' | 'name' | 'feeds' | 'schedule' | 'cadence' | 'maxAgeHours'>;

/** One fetched document (an API response, a CSV, a workbook). */
interface Payload {
  /** What it is, for errors and logs (e.g. "RWTC 2025-06"). */
  name: string;
  /** Raw bytes; text sources decode them in parse. */
  body: Uint8Array;
  /** When it was fetched (live) or recorded (replay), ISO date-time. */
  retrievedAt: string;
}

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;

interface LiveContext {
  fetch: FetchLike;
  config: Config;
  /** Fetch history from this date (backfill); absent = the recent window. */
  since?: string;
  /** Most requests in flight at once. */
  concurrency: number;
  /** Called after each payload, for progress bars. */
  onProgress?: (done: number, total: number) => void;
  now: Date;
}

interface NormalizeContext {
  def: SourceDef;
  /** The next scheduled release after now, for `next_release_at`. */
  nextReleaseAt: string | null;
  now: Date;
  /** Whether the payloads were fetched from the publisher or are the bundled samples (absent: live). */
  mode?: 'live' | 'replay';
}

interface SourceAdapter {
  readonly def: SourceDef;
  /** Fetch the live payloads (throws on HTTP/network failure). */
  live(ctx: LiveContext): Promise<Payload[]>;
  /** The project's bundled replay samples, in the live wire format. */
  samples(): Promise<Payload[]>;
  /** Pure: payload -> items. Throws SourceFormatError when the payload is not what was expected. */
  toItems(payload: Payload, ctx: NormalizeContext): SeriesItem[];
  /** Pure: the payload's published figures that have no value (USGS `W`, `E` …), with why. */
  toNotes?(payload: Payload): SeriesNote[];
}

/** The publisher changed its format, or sent something empty or broken. */
class SourceFormatError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SourceFormatError';
  }
}

export { SourceFormatError };
export type { ReleaseSchedule, ObservedAtRule, SourceDef, SourceRelease, Payload, FetchLike, LiveContext, NormalizeContext, SourceAdapter };
