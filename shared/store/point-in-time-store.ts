/**
 * A store as it was known at a past instant (`as_known_at`): the read path (ObservationReader)
 * runs on it unchanged. Each series answers the figures known at that instant, in the value they
 * had then (observation/vintage.ts): current items whose known-from is at or before it, and the
 * vintages whose interval holds it. The latest read path never comes here.
 *
 * Cost: a figure is never published before its as_of day, so each read is bounded by the
 * instant's date (one more day for publishers ahead of UTC): one Query of the series and, at the
 * same time, one of its vintage partition over the same dates (a latest read: over its last month,
 * and further back only for a figure revised after the instant that it met).
 */
import { addDays, isoDate } from '../dates';
import type { StoredObservation } from '../observation/schema';
import { asKnownAtForm, isKnownAt, knownFrom, resolveAt, type StoredVintage } from '../observation/vintage';
import type { ObservationReads, ObservationStore, SeriesNote, SourceRunStatus } from './observation-store';

/** Extra items read per page beyond those asked for: figures published after the instant are skipped. */
const SLACK = 4;
/** Days before the instant whose vintages a latest read asks for beside its first page. */
const RECENT_VINTAGE_DAYS = 31;
/** Value-less figures read to find those printed by the instant (a series has one per year at most). */
const NOTES_READ = 100;

/** Read-only view of `base` at instant `at`. */
class PointInTimeStore implements ObservationReads {
  private readonly t: number;
  readonly asKnownAt: string;
  /** The last as_of a figure known at the instant can carry. */
  private readonly lastDate: string;
  /** Series read empty at the instant, for the NO_DATA answer that names their first publication. */
  private readonly emptyReads = new Set<string>();

  constructor(
    private readonly base: ObservationStore,
    at: Date,
  ) {
    this.t = at.getTime();
    this.asKnownAt = at.toISOString();
    this.lastDate = addDays(isoDate(at), 1);
  }

  /**
   * The vintages that can hold the value at the instant of the figures read: only a figure revised
   * after the instant (a first print never had another value) and dated at or after `floor`. Those
   * of the recent span were read beside the first page; older ones are read now.
   */
  private async vintagesOf(key: string, read: readonly StoredObservation[], floor: string, recent: Promise<StoredVintage[]>): Promise<StoredVintage[]> {
    const dates = read
      .filter((o) => o.as_of >= floor && o.known_from !== undefined && Date.parse(o.known_from) > this.t)
      .map((o) => o.as_of)
      .sort();
    const near = await recent;
    if (dates.length === 0) return [];
    const spanStart = addDays(this.lastDate, -RECENT_VINTAGE_DAYS);
    return dates[0]! >= spanStart ? near : [...(await this.base.vintages(key, dates[0]!, addDays(spanStart, -1))), ...near];
  }

  private answered(items: readonly StoredObservation[], key: string): StoredObservation[] {
    if (items.length === 0) this.emptyReads.add(key);
    return items.map((o) => asKnownAtForm(o, this.asKnownAt));
  }

  async latest(key: string): Promise<StoredObservation | null> {
    return (await this.recent(key, 1))[0] ?? null;
  }

  /**
   * Whether a stored figure can be the answer at the instant: known then, or revised since and
   * published by then (a vintage holds its value at the instant).
   */
  private candidate(o: StoredObservation): boolean {
    return isKnownAt(o, this.t) || (o.known_from !== undefined && o.published_at !== null && Date.parse(o.published_at) <= this.t);
  }

  /** The n newest figures known at the instant, newest first. */
  async recent(key: string, n: number): Promise<StoredObservation[]> {
    // The vintages of the last weeks, beside the first page: a series revised after the instant then
    // costs no second round trip (an empty read when nothing was revised).
    const recentVintages = this.base.vintages(key, addDays(this.lastDate, -RECENT_VINTAGE_DAYS), this.lastDate);
    // Awaited below; a store failure of the page first must not leave it rejected unseen.
    recentVintages.catch(() => undefined);
    const read: StoredObservation[] = [];
    let upper = addDays(this.lastDate, 1);
    let size = n + SLACK;
    for (;;) {
      const page = await this.base.before(key, upper, size);
      read.push(...page);
      const exhausted = page.length < size;
      const candidates = read.filter((o) => this.candidate(o));
      if (candidates.length >= n || exhausted) {
        // A vintage can only change the answer at or above the n-th newest candidate.
        const floor = candidates.length >= n ? candidates[n - 1]!.as_of : '0000-01-01';
        const resolved = resolveAt(read, await this.vintagesOf(key, read, floor, recentVintages), this.t).reverse();
        if (resolved.length >= n || exhausted) return this.answered(resolved.slice(0, n), key);
      }
      upper = page.at(-1)!.as_of;
      size *= 2;
    }
  }

  async window(key: string, start: string, end: string, maxItems: number): Promise<{ items: StoredObservation[]; capped: boolean }> {
    const last = end < this.lastDate ? end : this.lastDate;
    if (start > last) return { items: this.answered([], key), capped: false };
    // Both at once: a window is long, and one more round trip costs more than an empty vintage read.
    const [current, vintages] = await Promise.all([this.base.window(key, start, last, maxItems), this.base.vintages(key, start, last)]);
    const items = resolveAt(current.items, vintages, this.t);
    return { items: this.answered(items.slice(0, maxItems), key), capped: current.capped || items.length > maxItems };
  }

  /** Value-less figures printed by the instant (one without a print date is not counted as known). */
  async notes(key: string, n: number): Promise<SeriesNote[]> {
    const all = await this.base.notes(key, NOTES_READ);
    return all.filter((note) => note.published_at && Date.parse(note.published_at) <= this.t).slice(0, n);
  }

  /**
   * A source's status at the instant: its runs then are not recorded, so it says so (`as_known_at`)
   * and carries only the newest figure its newest series had published by then.
   */
  async getRunStatus(source: string): Promise<SourceRunStatus | null> {
    const now = await this.base.getRunStatus(source);
    if (!now) return null;
    const series = now.data_newest?.series;
    const newest = series ? await this.latest(series) : null;
    if (series && !newest) this.emptyReads.delete(series);
    return {
      source,
      last_attempt_at: null,
      last_success_at: null,
      last_error: null,
      last_items: null,
      ...(now.last_mode ? { last_mode: now.last_mode } : {}),
      quarantined: [],
      ...(newest ? { data_newest: { as_of: newest.as_of, freshness_class: newest.freshness_class, series } } : {}),
      as_known_at: this.asKnownAt,
    };
  }

  /**
   * When each series read empty at the instant was first published (the earliest known-from of its
   * first stored figure and that figure's vintages); null for a series nothing is stored of.
   */
  async firstKnownFrom(): Promise<Record<string, string | null>> {
    const out: Record<string, string | null> = {};
    await Promise.all(
      [...this.emptyReads].map(async (key) => {
        const [first] = (await this.base.range(key, { limit: 1 })).items;
        if (!first) {
          out[key] = null;
          return;
        }
        const vintages = await this.base.vintages(key, first.as_of, first.as_of);
        const froms = [knownFrom(first), ...vintages.map((v) => v.known_from)].sort((a, b) => Date.parse(a) - Date.parse(b));
        out[key] = froms[0]!;
      }),
    );
    return out;
  }
}

export { PointInTimeStore };
