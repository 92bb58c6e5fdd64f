import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../shared/config';
import { SAMPLES_DIR } from '../../shared/sources/common';
import { classPrefix, parseQuickStats, usdaNassCropProgress } from '../../shared/sources/usda-nass-crop-progress';
import type { FetchLike } from '../../shared/sources/types';
import { HAVE_FIXTURES, fixtureBytes } from '../helpers/fixtures';
import { normalizeCtx, payload } from '../helpers/sources';
import { cornCondition, nassBody, nassRecord } from './fundamentals-builders';

const ctx = normalizeCtx(usdaNassCropProgress.def);
const itemsOf = (body: string, name = 'quickstats-corn-2020.json') => usdaNassCropProgress.toItems(payload(name, body), ctx);
const get = (items: ReturnType<typeof itemsOf>, key: string, week: string) =>
  items.find((i) => i.seriesKey === key && i.observation.as_of === week)?.observation;

describe('NASS Quick Stats crop progress parser', () => {
  it('stores national progress per phase, official, published the Monday after the week ending', () => {
    const items = itemsOf(
      nassBody([nassRecord({}), nassRecord({ unit_desc: 'PCT EMERGED', short_desc: 'CORN - PROGRESS, MEASURED IN PCT EMERGED', Value: '81' })]),
    );
    expect(get(items, 'CROP#corn#planted', '2025-06-08')).toMatchObject({
      instrument: 'CROP:corn:planted',
      value: 93,
      unit: 'percent',
      freshness_class: 'weekly',
      quality: 'official',
      derived: false,
      published_at: '2025-06-09T20:00:00.000Z', // Monday 16:00 EDT
      source: { name: usdaNassCropProgress.def.name, series_id: 'CORN - PROGRESS, MEASURED IN PCT PLANTED' },
      attributes: { statistic: 'planted', week: 'WEEK #23', year: 2025, load_time: '2025-06-09 15:00:00.000' },
    });
    expect(get(items, 'CROP#corn#emerged', '2025-06-08')?.value).toBe(81);
  });

  it('stores condition as good + excellent (derived) with every class as published', () => {
    const items = itemsOf(nassBody(cornCondition('2025-06-08', [12, 58, 24, 4, 2])));
    expect(items).toHaveLength(1);
    expect(get(items, 'CROP#corn#condition', '2025-06-08')).toMatchObject({
      value: 70, // 12 excellent + 58 good
      quality: 'derived',
      derived: true,
      source: { series_id: 'CORN - CONDITION, MEASURED IN PCT GOOD + PCT EXCELLENT' },
      attributes: { excellent: 12, good: 58, fair: 24, poor: 4, very_poor: 2, method: expect.stringMatching(/good \+ excellent/) },
    });
  });

  it('keys wheat by class and skips state rows, NASS averages and withheld values', () => {
    const items = itemsOf(
      nassBody([
        nassRecord({
          commodity_desc: 'WHEAT',
          class_desc: 'WINTER',
          unit_desc: 'PCT HEADED',
          short_desc: 'WHEAT, WINTER - PROGRESS, MEASURED IN PCT HEADED',
          Value: '76',
        }),
        nassRecord({
          commodity_desc: 'WHEAT',
          class_desc: 'SPRING, (EXCL DURUM)',
          unit_desc: 'PCT PLANTED',
          short_desc: 'WHEAT, SPRING, (EXCL DURUM) - PROGRESS, MEASURED IN PCT PLANTED',
          Value: '96',
        }),
        nassRecord({ agg_level_desc: 'STATE', state_alpha: 'IA', Value: '97' }),
        nassRecord({ statisticcat_desc: 'PROGRESS, 5 YEAR AVG', Value: '91' }),
        nassRecord({ unit_desc: 'PCT SILKING', short_desc: 'CORN - PROGRESS, MEASURED IN PCT SILKING', Value: '(D)' }),
        nassRecord({ commodity_desc: 'ORANGES', Value: '5' }),
      ]),
    );
    expect(items.map((i) => [i.seriesKey, i.observation.value])).toEqual([
      ['CROP#wheat#winter_headed', 76],
      ['CROP#wheat#spring_planted', 96],
    ]);
    expect(classPrefix('SPRING, DURUM')).toBe('durum_');
    expect(classPrefix('ALL CLASSES')).toBe('');
  });

  it('replays real national soybean progress only: official, unlabelled, no condition (hand-checked weeks)', async () => {
    const items = (await usdaNassCropProgress.samples()).flatMap((p) => usdaNassCropProgress.toItems(p, ctx));
    // One record per filled progress cell of the fixture table (planted_pct..harvested_pct): 158.
    expect(items).toHaveLength(158);
    expect(new Set(items.map((i) => i.seriesKey))).toEqual(
      new Set(['planted', 'emerged', 'blooming', 'setting_pods', 'dropping_leaves', 'harvested'].map((s) => `CROP#soybeans#${s}`)),
    );
    for (const { observation } of items) {
      expect(observation).toMatchObject({ quality: 'official', derived: false, license_tag: usdaNassCropProgress.def.licenseTag });
      expect(observation.attributes.synthetic).toBeUndefined();
    }
    // Week ending 2025-07-13: blooming 47, setting pods 15 (as NASS published them; fixtures/nass/SOURCE.md).
    expect(get(items, 'CROP#soybeans#blooming', '2025-07-13')).toMatchObject({
      value: 47,
      published_at: '2025-07-14T20:00:00.000Z', // Monday 16:00 EDT
      source: { series_id: 'SOYBEANS - PROGRESS, MEASURED IN PCT BLOOMING' },
      attributes: { week: 'WEEK #28', year: 2025, load_time: null },
    });
    expect(get(items, 'CROP#soybeans#setting_pods', '2025-07-13')?.value).toBe(15);
    // The newest week, 2026-10-04: dropping leaves 85, harvested 25.
    expect(get(items, 'CROP#soybeans#harvested', '2026-10-04')?.value).toBe(25);
    expect(get(items, 'CROP#soybeans#dropping_leaves', '2026-10-04')?.value).toBe(85);
    expect(readFileSync(`${SAMPLES_DIR}usda-nass-crop-progress/README.md`, 'utf8')).toMatch(/datuoniao\/usda-soy-dashboard/);
  });

  it('labels a payload named as synthetic on every observation: indicative, "synthetic sample" in the source name', () => {
    const items = itemsOf(nassBody([nassRecord({}), ...cornCondition('2025-06-08', [12, 58, 24, 4, 2])]), 'crop-progress.synthetic.json');
    expect(items).toHaveLength(2);
    for (const { observation } of items) {
      expect(observation.source?.name).toMatch(/synthetic sample/);
      expect(observation.quality).toBe('indicative');
      expect(observation.derived).toBe(false);
      expect(observation.attributes.synthetic).toBe(true);
      expect(observation.license_tag).toMatch(/^synthetic sample/);
    }
    // Real payloads are not labelled.
    expect(itemsOf(nassBody([nassRecord({})]))[0]!.observation.source?.name).not.toMatch(/synthetic/);
  });

  it.each<[string, string, RegExp]>([
    ['an NA value', nassBody([nassRecord({ Value: 'NA' })]), /Value "NA" is not a number or a NASS code/],
    ['a "." value', nassBody([nassRecord({ Value: '.' })]), /Value "\." is not a number/],
    ['a renamed field', nassBody([{ ...nassRecord({}), Value: undefined, value: '93' } as never]), /record 0: Value/],
    ['a missing week ending', nassBody([nassRecord({ week_ending: '' })]), /week_ending "" is not YYYY-MM-DD/],
    ['a unit that is not a percentage', nassBody([nassRecord({ unit_desc: 'ACRES' })]), /unit "ACRES" is not a percentage/],
    ['an unknown condition class', nassBody([nassRecord({ statisticcat_desc: 'CONDITION', unit_desc: 'PCT SUPERB' })]), /unknown condition class/],
    ['a repeated week', nassBody([nassRecord({}), nassRecord({})]), /CROP#corn#planted has two figures for 2025-06-08/],
    ['an API error body', JSON.stringify({ error: ['exceeds limit=50000'] }), /not a Quick Stats response \(error: \["exceeds limit=50000"\]\)/],
    ['not JSON', '<html>502 Bad Gateway</html>', /not JSON/],
  ])('refuses %s', (_n, body, msg) => {
    expect(() => itemsOf(body)).toThrow(msg);
  });

  it('live: asks for national weekly progress and condition per commodity, and never leaks the key', async () => {
    const config = loadConfig({ OBSERVATIONS_TABLE: 'o', CREDITS_TABLE: 'c', NASS_API_KEY: 'sekrit-key' });
    const asked: URL[] = [];
    const ok: FetchLike = async (url) => {
      asked.push(new URL(String(url)));
      return new Response(nassBody([nassRecord({})]));
    };
    const payloads = await usdaNassCropProgress.live({ fetch: ok, config, concurrency: 2, now: new Date('2025-06-10T00:00:00Z') });
    expect(payloads.map((p) => p.name)).toEqual(['quickstats-corn-2020.json', 'quickstats-soybeans-2020.json', 'quickstats-wheat-2020.json']);
    expect(asked[0]!.searchParams.getAll('statisticcat_desc')).toEqual(['PROGRESS', 'CONDITION']);
    expect(Object.fromEntries(asked[0]!.searchParams)).toMatchObject({
      key: 'sekrit-key',
      commodity_desc: 'CORN',
      agg_level_desc: 'NATIONAL',
      freq_desc: 'WEEKLY',
      year__GE: '2020',
      format: 'JSON',
    });
    const down: FetchLike = async () => new Response('oops', { status: 500 });
    const err = await usdaNassCropProgress.live({ fetch: down, config, concurrency: 1, now: new Date() }).catch((e: Error) => e);
    expect(String(err)).toMatch(/HTTP 500/);
    expect(String(err)).not.toMatch(/sekrit-key/);
  });
});

describe.skipIf(!HAVE_FIXTURES)('contract: NASS Quick Stats format reference (../shared/fixtures/nass)', () => {
  it('reads the real ORANGES record (39 keys, numeric year, "Value" with a comma) and finds no crop progress in it', () => {
    const body = new TextDecoder().decode(fixtureBytes('nass/api_GET.format-reference.ORANGES-CA-2019.first-record.json'));
    const [record] = parseQuickStats(body, 'oranges');
    expect(record).toMatchObject({ commodity_desc: 'ORANGES', year: 2019, Value: '147,000', agg_level_desc: 'STATE', freq_desc: 'ANNUAL' });
    expect(Object.keys(JSON.parse(body).data[0])).toHaveLength(39);
    expect(itemsOf(body, 'oranges.json')).toEqual([]);
  });
});
