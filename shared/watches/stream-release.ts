/**
 * What a batch of the observation table's stream records says about the release behind it (issue
 * 37): the newest figure written (series key and as_of from the keys) and when. Pure.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import type { TriggeringRelease } from './watch';

/** Items that are no figure: run records (META#…) and notes change no answer on their own; a revision also rewrites its figure beside its VINTAGE# item. */
const isFigure = (pk: string): boolean => !pk.startsWith('META#') && !pk.startsWith('NOTE#') && !pk.startsWith('VINTAGE#');

/** The release of a batch, or null when it wrote no figure. */
const releaseOfStream = (records: readonly DynamoDBRecord[]): TriggeringRelease | null => {
  let newest: { series: string; as_of: string; at: number } | null = null;
  for (const r of records) {
    const pk = r.dynamodb?.Keys?.pk?.S;
    const sk = r.dynamodb?.Keys?.sk?.S ?? '';
    if (!pk || !isFigure(pk) || r.eventName === 'REMOVE') continue;
    const at = (r.dynamodb?.ApproximateCreationDateTime ?? 0) * 1000;
    if (!newest || sk > newest.as_of) newest = { series: pk, as_of: sk, at };
  }
  if (!newest) return null;
  return {
    source: 'ingestion',
    series: newest.series,
    as_of: /^\d{4}-\d{2}-\d{2}/.test(newest.as_of) ? newest.as_of.slice(0, 10) : null,
    ingested_at: new Date(newest.at).toISOString(),
  };
};

export { releaseOfStream };
