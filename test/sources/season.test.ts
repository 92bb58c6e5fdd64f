/**
 * Seasonal sources are not stale out of season (issue 34): NASS Crop Progress publishes April to
 * November. Its last report of 2026 is Monday 30 November (16:00 EST = 21:00Z), its first of 2027
 * Monday 5 April (16:00 EDT = 20:00Z): the calendar's Mondays of those months (NASS's stated rule).
 * Over the four winter months the freshness check (what feeds its alarm) emits SourceStale 0 and
 * /health says it is off season with the next release; a missed last release still alarms.
 */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { loadFreshness } from '../../shared/families/freshness';
import { checkSourceFreshness } from '../../shared/monitoring/source-freshness';
import { offSeasonOf } from '../../shared/sources/season';
import { METRIC, type MetricsSink } from '../../shared/observability/metrics';
import { createServices } from '../../shared/services';
import { findRelease } from '../../shared/sources/releases';
import { MemoryObservationStore } from '../../shared/store/memory-observation-store';
import type { SourceRunStatus } from '../../shared/store/observation-store';

const NASS = 'usda-nass-crop-progress';
const schedule = findRelease(NASS)!.schedule;

/** The run of Monday 30 November 2026 (15 minutes after the release) read the week ending Sunday the 29th. */
const lastRunOfSeason: SourceRunStatus = {
  source: NASS,
  last_attempt_at: '2026-11-30T21:15:00.000Z',
  last_success_at: '2026-11-30T21:15:00.000Z',
  last_error: null,
  last_items: 12,
  data_newest: { as_of: '2026-11-29', freshness_class: 'weekly' },
};

/** SourceStale of NASS and its /health entry, judged at `now` over `status`. */
const judge = async (status: SourceRunStatus, now: string) => {
  const store = new MemoryObservationStore();
  await store.putRunStatus(status);
  const services = createServices(loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c' }), { store, now: () => new Date(now) });
  const points: Array<{ source: string; value: number }> = [];
  const metrics: MetricsSink = {
    count: (name, value = 1, dims = {}) => {
      if (name === METRIC.sourceStale && dims.source === NASS) points.push({ source: dims.source, value });
    },
    publish: () => undefined,
  };
  await checkSourceFreshness(services, metrics);
  const [health] = await loadFreshness(services, [NASS]);
  return { sourceStale: points[0]!.value, health: health! };
};

describe('offSeasonOf (NASS Crop Progress)', () => {
  it.each([
    ['2026-11-23T12:00:00Z', null], // in season
    ['2026-11-30T22:00:00Z', '2026-11-30T21:00:00.000Z'], // after the season's last release
    ['2027-01-15T12:00:00Z', '2026-11-30T21:00:00.000Z'],
    ['2027-04-06T12:00:00Z', '2026-11-30T21:00:00.000Z'], // the first release a day ago or less: its run's grace
    ['2027-04-06T21:00:00Z', null], // in season again
  ])('at %s -> last release of the season %s', (now, last) => {
    const season = offSeasonOf(schedule, new Date(now));
    expect(season?.last_release_at ?? null).toBe(last);
    if (season) expect(season.text).toMatch(/^off season: no release from 2026-11-30T21:00:00.000Z until 2027-04-05T20:00:00.000Z$/);
  });

  it('is null for a source that publishes all year', () => {
    expect(offSeasonOf(findRelease('usda-fas-esr')!.schedule, new Date('2027-01-15T12:00:00Z'))).toBeNull();
  });
});

describe('the freshness check over the winter 2026-27', () => {
  it('emits SourceStale 0 every day from 1 December to 5 April; /health says off season with the next release', async () => {
    const days: string[] = [];
    for (let t = Date.parse('2026-12-01T12:00:00Z'); t <= Date.parse('2027-04-05T12:00:00Z'); t += 86_400_000) days.push(new Date(t).toISOString());
    expect(days).toHaveLength(126); // four months and more
    for (const day of days) {
      const { sourceStale, health } = await judge(lastRunOfSeason, day);
      expect(sourceStale, day).toBe(0);
      expect(health).toMatchObject({ stale: false, stale_reason: null, next_release_at: '2027-04-05T20:00:00.000Z' });
      expect(health.off_season, day).toBe('off season: no release from 2026-11-30T21:00:00.000Z until 2027-04-05T20:00:00.000Z');
    }
  });

  it('still alarms when the last release of the season was missed (no run since the 23 November one)', async () => {
    const missed = {
      ...lastRunOfSeason,
      last_success_at: '2026-11-23T21:15:00.000Z',
      last_attempt_at: '2026-11-30T21:15:00.000Z',
      data_newest: { as_of: '2026-11-22', freshness_class: 'weekly' },
    };
    const { sourceStale, health } = await judge(missed, '2027-01-15T12:00:00Z');
    expect(sourceStale).toBe(1);
    expect(health.stale).toBe(true);
  });

  it('is judged in season again once the first release of 2027 is a day old, and stale without its run', async () => {
    const { sourceStale, health } = await judge(lastRunOfSeason, '2027-04-07T12:00:00Z');
    expect(health.off_season).toBeNull();
    expect(sourceStale).toBe(1);
  });
});
