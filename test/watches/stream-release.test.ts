/** Issue 37: what a batch of observation-stream records says about the release behind it. */
import type { DynamoDBRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { releaseOfStream } from '../../shared/watches/stream-release';

const record = (pk: string, sk: string, at: number, eventName: DynamoDBRecord['eventName'] = 'INSERT'): DynamoDBRecord => ({
  eventName,
  dynamodb: { Keys: { pk: { S: pk }, sk: { S: sk } }, ApproximateCreationDateTime: at },
});

describe('releaseOfStream', () => {
  it('names the newest figure written and when', () => {
    const r = releaseOfStream([
      record('INV#cushing', '2026-02-06', 1_770_000_000),
      record('INV#crude_ex_spr', '2026-02-13', 1_770_000_005),
      record('META#eia-petroleum', 'STATUS', 1_770_000_006),
    ]);
    expect(r).toEqual({ source: 'ingestion', series: 'INV#crude_ex_spr', as_of: '2026-02-13', ingested_at: new Date(1_770_000_005_000).toISOString() });
  });

  it('a batch of run records, notes, vintages or removals alone is no release', () => {
    expect(releaseOfStream([record('META#fred', 'STATUS', 1), record('NOTE#USGS#PA', '2025', 1), record('VINTAGE#PRICE#CL', '2026-01-02#x', 1)])).toBeNull();
    expect(releaseOfStream([record('PRICE#CL', '2026-01-02', 1, 'REMOVE')])).toBeNull();
  });
});
