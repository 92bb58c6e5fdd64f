/**
 * In-memory {@link ObservationStore} for fast unit tests of handlers and readers. Same
 * semantics as the DynamoDB adapter (upsert on series + as_of, ascending ranges, exclusive
 * `after`); the DynamoDB-compatible embedded store stays the one used end to end.
 */
import type { StoredObservation } from '../observation/schema';
import type { StoredVintage } from '../observation/vintage';
import type { ObservationStore, RangePage, RangeQuery, SeriesItem, SeriesNote, SourceRunStatus, VintageItem } from './observation-store';

class MemoryObservationStore implements ObservationStore {
  private readonly series = new Map<string, Map<string, StoredObservation>>();
  private readonly runs = new Map<string, SourceRunStatus>();
  private readonly noted = new Map<string, Map<string, SeriesNote>>();
  /** series -> `<as_of>#<known_from>` -> vintage, as the DynamoDB adapter keys them. */
  private readonly kept = new Map<string, Map<string, StoredVintage>>();

  private sorted(key: string): StoredObservation[] {
    return [...(this.series.get(key)?.values() ?? [])].sort((a, b) => a.as_of.localeCompare(b.as_of));
  }

  async latest(key: string): Promise<StoredObservation | null> {
    return this.sorted(key).at(-1) ?? null;
  }

  async recent(key: string, n: number): Promise<StoredObservation[]> {
    return this.sorted(key).reverse().slice(0, n);
  }

  async before(key: string, asOf: string, n: number): Promise<StoredObservation[]> {
    return this.sorted(key)
      .filter((o) => o.as_of < asOf)
      .reverse()
      .slice(0, n);
  }

  async range(key: string, q: RangeQuery): Promise<RangePage> {
    const items = this.sorted(key).filter((o) => (!q.start || o.as_of >= q.start) && (!q.end || o.as_of <= q.end) && (!q.after || o.as_of > q.after));
    const page = items.slice(0, q.limit);
    return { items: page, next: items.length > q.limit ? (page.at(-1)?.as_of ?? null) : null };
  }

  async window(key: string, start: string, end: string, maxItems: number) {
    const page = await this.range(key, { start, end, limit: maxItems });
    return { items: page.items, capped: page.next !== null };
  }

  async upsertMany(items: SeriesItem[]): Promise<number> {
    for (const { seriesKey, observation } of items) {
      if (!this.series.has(seriesKey)) this.series.set(seriesKey, new Map());
      this.series.get(seriesKey)!.set(observation.as_of, structuredClone(observation));
    }
    return items.length;
  }

  async putVintages(vintages: VintageItem[]): Promise<void> {
    for (const { seriesKey, vintage } of vintages) {
      if (!this.kept.has(seriesKey)) this.kept.set(seriesKey, new Map());
      this.kept.get(seriesKey)!.set(`${vintage.as_of}#${vintage.known_from}`, structuredClone(vintage));
    }
  }

  async vintages(key: string, start: string, end: string): Promise<StoredVintage[]> {
    return [...(this.kept.get(key) ?? new Map<string, StoredVintage>())]
      .filter(([, v]) => v.as_of >= start && v.as_of <= end)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([, v]) => structuredClone(v));
  }

  async putNotes(notes: SeriesNote[]): Promise<void> {
    for (const n of notes) {
      if (!this.noted.has(n.seriesKey)) this.noted.set(n.seriesKey, new Map());
      this.noted.get(n.seriesKey)!.set(n.as_of, { ...n });
    }
  }

  async notes(key: string, n: number): Promise<SeriesNote[]> {
    return [...(this.noted.get(key)?.values() ?? [])].sort((a, b) => b.as_of.localeCompare(a.as_of)).slice(0, n);
  }

  async deleteRange(key: string, start: string, end: string): Promise<number> {
    const series = this.series.get(key);
    const doomed = [...(series?.keys() ?? [])].filter((d) => d >= start && d <= end);
    for (const d of doomed) series!.delete(d);
    const kept = this.kept.get(key);
    for (const [sk, v] of kept ?? []) if (v.as_of >= start && v.as_of <= end) kept!.delete(sk);
    return doomed.length;
  }

  async getRunStatus(source: string): Promise<SourceRunStatus | null> {
    return this.runs.get(source) ?? null;
  }

  async putRunStatus(status: SourceRunStatus): Promise<void> {
    this.runs.set(status.source, { ...status });
  }
}

export { MemoryObservationStore };
