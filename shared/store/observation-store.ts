/**
 * The observation repository (port + DynamoDB adapter). Keys: pk = series key, sk = as_of.
 * Writes are idempotent upserts on (series, as_of): a re-run writes the same items, and a
 * revision overwrites the current value after the runner kept the old one as a vintage, in its
 * own partition (pk = VINTAGE#<series>, sk = <as_of>#<known_from>), so the latest read never meets it.
 */
import { BatchWriteCommand, GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { mapLimit } from '../concurrency/map-limit';
import type { StoredObservation } from '../observation/schema';
import type { StoredVintage } from '../observation/vintage';

/** A stored observation addressed by its series key. */
interface SeriesItem {
  seriesKey: string;
  observation: StoredObservation;
}

/** An old value of a revised figure, addressed by its series key. */
interface VintageItem {
  seriesKey: string;
  vintage: StoredVintage;
}

interface RangeQuery {
  start?: string;
  end?: string;
  /** Page size; one more item is read to know whether the window was truncated. */
  limit: number;
  /** Exclusive lower bound: the `next` cursor of the previous page. */
  after?: string;
}

interface RangePage {
  items: StoredObservation[];
  /** as_of to pass as `after` for the next page, or null when the window is exhausted. */
  next: string | null;
}

/**
 * A published figure without a value (USGS `W`, `NA`, `E`, or "precludes calculation"): what the
 * publisher printed and why there is no number. Kept beside the series, never served as a value.
 */
interface SeriesNote {
  seriesKey: string;
  as_of: string;
  /** The text in the value's place, e.g. "s" or "W". */
  published_value: string;
  /** Why there is no value, in the publisher's words where it gave them. */
  note: string;
  unit: string;
  /** When the publisher printed it (the edition's release); what a past instant is judged by. */
  published_at?: string | null;
}

/** A price held in quarantine (shared/sources/guards.ts), as the run status keeps it. */
interface HeldPoint {
  series: string;
  as_of: string;
  value: number;
  reason: string;
  /** When it was first held (ISO instant). */
  held_since: string;
  /** A band violation waits for an operator; a move for a confirming point or an operator. */
  release: 'operator' | 'confirmation or operator';
  /** What a confirmation or a release writes. */
  observation: StoredObservation;
}

/** Run status of one source, kept under META#<source>. */
interface SourceRunStatus {
  source: string;
  last_attempt_at: string | null;
  last_success_at: string | null;
  last_error: string | null;
  /** Items written by the last successful run. */
  last_items: number | null;
  /** How the last successful run got its payloads: a live fetch, or the bundled samples (replay). */
  last_mode?: 'live' | 'replay';
  /** How the last attempt ended: a skipped run (no API key) is not ok either. */
  last_outcome?: 'ok' | 'failed' | 'skipped';
  /**
   * Prices held in quarantine (not written) until confirmed or released (shared/sources/guards.ts),
   * shown in /health; kept across failed runs.
   */
  quarantined?: HeldPoint[];
  /**
   * The newest observation the source has written (as_of, its freshness class and series): what
   * /health judges its data by; at a past instant, that series' newest figure known then.
   */
  data_newest?: { as_of: string; freshness_class: string; series?: string };
  /**
   * Set on the status a past instant's view answers: the source's runs then are not recorded, so it
   * is judged by its data alone (run fields null, nothing in quarantine).
   */
  as_known_at?: string;
}

interface ObservationStore {
  latest(seriesKey: string): Promise<StoredObservation | null>;
  /** The n most recent observations, newest first. */
  recent(seriesKey: string, n: number): Promise<StoredObservation[]>;
  /** The n most recent observations dated strictly before `asOf`, newest first. */
  before(seriesKey: string, asOf: string, n: number): Promise<StoredObservation[]>;
  /** Ascending history in [start, end], paged. */
  range(seriesKey: string, q: RangeQuery): Promise<RangePage>;
  /** Every observation in [start, end], ascending, reading at most `maxItems` (capped says it stopped early). */
  window(seriesKey: string, start: string, end: string, maxItems: number): Promise<{ items: StoredObservation[]; capped: boolean }>;
  upsertMany(items: SeriesItem[]): Promise<number>;
  /** Idempotent puts of old values of revised figures (on series, as_of and known_from). */
  putVintages(vintages: VintageItem[]): Promise<void>;
  /** Every vintage of a series dated in [start, end], ascending by as_of, then known_from. */
  vintages(seriesKey: string, start: string, end: string): Promise<StoredVintage[]>;
  /** Idempotent upserts of value-less figures on (series, as_of). */
  putNotes(notes: SeriesNote[]): Promise<void>;
  /** The n newest value-less figures of a series, newest first. */
  notes(seriesKey: string, n: number): Promise<SeriesNote[]>;
  /** Removes every observation of a series dated in [start, end], and their vintages (operator repair); returns how many observations. */
  deleteRange(seriesKey: string, start: string, end: string): Promise<number>;
  getRunStatus(source: string): Promise<SourceRunStatus | null>;
  putRunStatus(status: SourceRunStatus): Promise<void>;
}

/** What the read path asks of a store (ObservationReader); a past instant's view answers only these. */
type ObservationReads = Pick<ObservationStore, 'latest' | 'recent' | 'window' | 'notes' | 'getRunStatus'>;

const META_SK = 'STATUS';
/** Value-less figures live in their own partition beside the series, so series reads never meet them. */
const noteKey = (seriesKey: string) => `NOTE#${seriesKey}`;
/** Old values of revised figures, beside the series for the same reason; sk = <as_of>#<known_from>. */
const vintageKey = (seriesKey: string) => `VINTAGE#${seriesKey}`;
/** Sorts after every character of an ISO instant, so `<as_of>#~` closes an as_of's vintages. */
const SK_END = '~';
const BATCH_SIZE = 25;
/** Batches in flight at once: a backfill of thousands of items is not written one batch at a time. */
const BATCH_CONCURRENCY = 4;
const MAX_BATCH_ATTEMPTS = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const toObservation = (item: Record<string, unknown>): StoredObservation => {
  const { pk: _pk, sk: _sk, ...rest } = item;
  return rest as StoredObservation;
};

/** DynamoDB implementation of {@link ObservationStore}. */
class DynamoObservationStore implements ObservationStore {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async latest(seriesKey: string): Promise<StoredObservation | null> {
    const [first] = await this.recent(seriesKey, 1);
    return first ?? null;
  }

  async recent(seriesKey: string, n: number): Promise<StoredObservation[]> {
    const out = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': seriesKey },
        ScanIndexForward: false,
        Limit: n,
      }),
    );
    return (out.Items ?? []).map(toObservation);
  }

  async before(seriesKey: string, asOf: string, n: number): Promise<StoredObservation[]> {
    const out = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk < :d',
        ExpressionAttributeValues: { ':pk': seriesKey, ':d': asOf },
        ScanIndexForward: false,
        Limit: n,
      }),
    );
    return (out.Items ?? []).map(toObservation);
  }

  async range(seriesKey: string, q: RangeQuery): Promise<RangePage> {
    const lower = [q.after, q.start].filter(Boolean).sort().at(-1) ?? '0000-00-00';
    const upper = q.end ?? '9999-99-99';
    // DynamoDB refuses BETWEEN with a lower bound above the upper one: an empty window is no error.
    if (lower > upper) return { items: [], next: null };
    const items: StoredObservation[] = [];
    let exclusiveStartKey: Record<string, unknown> | undefined;
    // Query pages stop at 1 MB, so keep reading until limit + 1 items or the end of the key range.
    do {
      const out = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
          ExpressionAttributeValues: { ':pk': seriesKey, ':lo': lower, ':hi': upper },
          ScanIndexForward: true,
          Limit: q.limit + 1 - items.length,
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      for (const it of out.Items ?? []) if (!q.after || (it.sk as string) > q.after) items.push(toObservation(it));
      exclusiveStartKey = out.LastEvaluatedKey;
    } while (exclusiveStartKey && items.length <= q.limit);
    const truncated = items.length > q.limit;
    const page = items.slice(0, q.limit);
    return { items: page, next: truncated ? (page.at(-1)?.as_of ?? null) : null };
  }

  async window(seriesKey: string, start: string, end: string, maxItems: number) {
    const items: StoredObservation[] = [];
    let after: string | undefined;
    do {
      const page = await this.range(seriesKey, { start, end, limit: Math.min(1000, maxItems - items.length), after });
      items.push(...page.items);
      after = page.next ?? undefined;
    } while (after && items.length < maxItems);
    return { items, capped: Boolean(after) };
  }

  async upsertMany(items: SeriesItem[]): Promise<number> {
    await this.batchWrite(items.map(({ seriesKey, observation }) => ({ PutRequest: { Item: { pk: seriesKey, sk: observation.as_of, ...observation } } })));
    return items.length;
  }

  async putVintages(vintages: VintageItem[]): Promise<void> {
    await this.batchWrite(
      vintages.map(({ seriesKey, vintage }) => ({
        PutRequest: { Item: { pk: vintageKey(seriesKey), sk: `${vintage.as_of}#${vintage.known_from}`, ...vintage } },
      })),
    );
  }

  async vintages(seriesKey: string, start: string, end: string): Promise<StoredVintage[]> {
    if (start > end) return [];
    const out: StoredVintage[] = [];
    let exclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.doc.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :lo AND :hi',
          ExpressionAttributeValues: { ':pk': vintageKey(seriesKey), ':lo': start, ':hi': `${end}#${SK_END}` },
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      for (const it of page.Items ?? []) out.push(toObservation(it) as StoredVintage);
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey);
    return out;
  }

  async putNotes(notes: SeriesNote[]): Promise<void> {
    await this.batchWrite(notes.map((n) => ({ PutRequest: { Item: { pk: noteKey(n.seriesKey), sk: n.as_of, ...n } } })));
  }

  async notes(seriesKey: string, n: number): Promise<SeriesNote[]> {
    const out = await this.doc.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': noteKey(seriesKey) },
        ScanIndexForward: false,
        Limit: n,
      }),
    );
    return (out.Items ?? []).map(({ pk: _pk, sk: _sk, ...rest }) => rest as SeriesNote);
  }

  async deleteRange(seriesKey: string, start: string, end: string): Promise<number> {
    const doomed: string[] = [];
    let after: string | undefined;
    do {
      const page = await this.range(seriesKey, { start, end, limit: 1000, after });
      doomed.push(...page.items.map((o) => o.as_of));
      after = page.next ?? undefined;
    } while (after);
    const vintages = await this.vintages(seriesKey, start, end);
    await this.batchWrite([
      ...doomed.map((sk) => ({ DeleteRequest: { Key: { pk: seriesKey, sk } } })),
      ...vintages.map((v) => ({ DeleteRequest: { Key: { pk: vintageKey(seriesKey), sk: `${v.as_of}#${v.known_from}` } } })),
    ]);
    return doomed.length;
  }

  /** BatchWriteItem in chunks of 25; unprocessed items (throttling) are retried with backoff. */
  private async batchWrite(all: ReadonlyArray<Record<string, unknown>>): Promise<void> {
    const batches = Array.from({ length: Math.ceil(all.length / BATCH_SIZE) }, (_, i) => all.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE));
    await mapLimit(batches, BATCH_CONCURRENCY, async (batch) => {
      let requests = batch;
      for (let attempt = 0; requests.length > 0; attempt++) {
        if (attempt >= MAX_BATCH_ATTEMPTS) throw new Error(`BatchWriteItem left ${requests.length} items unprocessed`);
        if (attempt > 0) await sleep(Math.min(1000, 25 * 2 ** attempt));
        const out = await this.doc.send(new BatchWriteCommand({ RequestItems: { [this.tableName]: requests as never } }));
        requests = (out.UnprocessedItems?.[this.tableName] ?? []) as typeof requests;
      }
    });
  }

  async getRunStatus(source: string): Promise<SourceRunStatus | null> {
    const out = await this.doc.send(new GetCommand({ TableName: this.tableName, Key: { pk: `META#${source}`, sk: META_SK } }));
    if (!out.Item) return null;
    const { pk: _pk, sk: _sk, ...status } = out.Item;
    return status as SourceRunStatus;
  }

  async putRunStatus(status: SourceRunStatus): Promise<void> {
    await this.doc.send(new PutCommand({ TableName: this.tableName, Item: { pk: `META#${status.source}`, sk: META_SK, ...status } }));
  }
}

export { DynamoObservationStore };
export type { ObservationStore, ObservationReads, SeriesItem, SeriesNote, VintageItem, RangeQuery, RangePage, SourceRunStatus, HeldPoint };
