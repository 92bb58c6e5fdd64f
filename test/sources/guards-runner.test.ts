/**
 * The ingestion guards through the real runner (runSource, the eia-spot adapter's own parser, the
 * embedded store): the poisoned rows of issue 34 never become a served price, and the real
 * extremes still enter (WTI's -37.63 by an operator's release, Henry Hub's 13.20 at once).
 *
 * The real history is the committed replay samples (EIA RWTC, RBRTE, RNGWHHD to 2026-08-18); every
 * row after it is constructed, as the issue gives it.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SAMPLES_DIR } from '../../shared/sources/common';
import { eiaSpot } from '../../shared/sources/eia-spot';
import { releaseHeld } from '../../shared/sources/release';
import { runSource } from '../../shared/sources/runner';
import { MemoryObservationStore } from '../../shared/store/memory-observation-store';
import { startTestStore, type TestStore } from '../helpers/store';

type Row = readonly [string, number];

/** The last `n` rows (ascending) of a committed EIA v2 sample, e.g. 'NG.RNGWHHD.D'. */
const sampleRows = (seriesId: string, n: number): Row[] => {
  const doc = JSON.parse(readFileSync(`${SAMPLES_DIR}eia-spot/${seriesId}.json`, 'utf8')) as { response: { data: Array<{ period: string; value: string }> } };
  return doc.response.data
    .slice(0, n)
    .map((r): Row => [r.period, Number(r.value)])
    .reverse();
};

const UNITS: Record<string, string> = {
  'PET.RWTC.D': '$/BBL',
  'PET.RBRTE.D': '$/BBL',
  'NG.RNGWHHD.D': '$/MMBTU',
  'PET.EER_EPD2DXL0_PF4_Y35NY_DPG.D': '$/GAL',
  'PET.EER_EPMRU_PF4_RGC_DPG.D': '$/GAL',
};

/** One EIA v2 response of `seriesId` holding `rows`, as the live endpoint sends it. */
const eiaPayload = (seriesId: string, rows: readonly Row[], retrievedAt: string) => ({
  name: `eia-spot/${seriesId}.json`,
  body: new TextEncoder().encode(
    JSON.stringify({
      response: {
        total: String(rows.length),
        dateFormat: 'YYYY-MM-DD',
        frequency: 'daily',
        data: [...rows].reverse().map(([period, value]) => ({ period, series: seriesId.split('.')[1], value: String(value), units: UNITS[seriesId] })),
      },
    }),
  ),
  retrievedAt,
});

/** The business days after `from` (Mon-Fri), `n` of them. */
const businessDaysAfter = (from: string, n: number): string[] => {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`) + 86_400_000; out.length < n; t += 86_400_000) {
    const d = new Date(t);
    if (d.getUTCDay() !== 0 && d.getUTCDay() !== 6) out.push(d.toISOString().slice(0, 10));
  }
  return out;
};

describe('guards through runSource: poisoned rows (issue 34)', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await startTestStore();
  });
  afterAll(async () => t.close());

  /** One run of the eia-spot adapter over the given series' rows, at `now`. */
  const run = (seriesId: string, rows: readonly Row[], now: string) =>
    runSource({ ...eiaSpot, samples: async () => [eiaPayload(seriesId, rows, now)] }, { mode: 'replay', store: t.store, config: t.config, now: new Date(now) });
  const latest = async (key: string) => (await t.store.latest(key))?.value;
  const heldOf = async (key: string) => ((await t.store.getRunStatus('eia-spot'))?.quarantined ?? []).filter((h) => h.series === key);

  it('Brent 95.29, then 9.0 and 9.1 in one payload: both held, the latest stays 95.29, and a real later release does not confirm them', async () => {
    const history = sampleRows('PET.RBRTE.D', 60);
    expect(history.at(-1)).toEqual(['2026-08-18', 95.29]);
    expect(await run('PET.RBRTE.D', history, '2026-08-19T15:00:00.000Z')).toMatchObject({ status: 'ok', quarantined: 0 });
    const poisoned = await run(
      'PET.RBRTE.D',
      [
        ['2026-08-19', 9.0],
        ['2026-08-20', 9.1],
      ],
      '2026-08-21T15:00:00.000Z',
    );
    expect(poisoned).toMatchObject({ status: 'ok', items: 0, quarantined: 2 });
    expect(poisoned.message).not.toMatch(/confirmed/);
    expect(await latest('PRICE#BZ')).toBe(95.29);
    expect((await heldOf('PRICE#BZ')).map((h) => [h.as_of, h.value, h.release])).toEqual([
      ['2026-08-19', 9, 'confirmation or operator'],
      ['2026-08-20', 9.1, 'confirmation or operator'],
    ]);
    // The next release brings the market back near 95: no confirmation, the two stay held.
    const next = await run('PET.RBRTE.D', [['2026-08-21', 95.6]], '2026-08-26T15:00:00.000Z');
    expect(next).toMatchObject({ status: 'ok', items: 1, quarantined: 0 });
    expect(next.message).not.toMatch(/confirmed/);
    expect(await latest('PRICE#BZ')).toBe(95.6);
    expect((await heldOf('PRICE#BZ')).map((h) => h.value)).toEqual([9, 9.1]);
  });

  it('Henry Hub falling 20% a day for 10 days (2.82 to 0.30): held from the third step on, never served below 1.81', async () => {
    const history = sampleRows('NG.RNGWHHD.D', 60);
    expect(history.at(-1)).toEqual(['2026-08-18', 2.82]);
    await run('NG.RNGWHHD.D', history, '2026-08-19T15:00:00.000Z');
    const days = businessDaysAfter('2026-08-18', 10);
    const creep = days.map((d, i): Row => [d, Number((2.82 * 0.8 ** (i + 1)).toFixed(3))]);
    expect(creep.at(-1)![1]).toBeCloseTo(0.3, 2);
    const r = await run('NG.RNGWHHD.D', creep, '2026-09-02T15:00:00.000Z');
    expect(r).toMatchObject({ status: 'ok', items: 2, quarantined: 8 });
    expect(await latest('PRICE#NG')).toBe(1.805);
    const held = await heldOf('PRICE#NG');
    expect(held.map((h) => h.value)).toEqual(creep.slice(2).map(([, v]) => v));
    // Held as a creep, for an operator: no later publication can confirm a creep (it would confirm itself).
    expect(held.every((h) => h.release === 'operator')).toBe(true);
    expect(held[0]!.reason).toMatch(/^1\.444 is a creep of 3 steps from 2\.82/);
    expect(held.at(-1)!.reason).toMatch(/^0\.303 is a creep of 10 steps from 2\.82/);
    // History and the replay store never carry a held point.
    expect((await t.store.window('PRICE#NG', days[0]!, days.at(-1)!, 100)).items.map((o) => o.value)).toEqual([2.256, 1.805]);
  });

  it('WTI creeping to 0.219 over weekly releases: every release after the first two steps is held; the history stops after the second step', async () => {
    const history = sampleRows('PET.RWTC.D', 60);
    expect(history.at(-1)).toEqual(['2026-08-18', 86.48]);
    await run('PET.RWTC.D', history, '2026-08-19T15:00:00.000Z');
    const days = businessDaysAfter('2026-08-18', 27);
    // A steady fall of about 20% a business day, from 86.48 to the audit's 0.219.
    const step = (0.219 / 86.48) ** (1 / 27);
    const creep = days.map((d, i): Row => [d, Number((86.48 * step ** (i + 1)).toFixed(3))]);
    expect(creep.at(-1)![1]).toBe(0.219);
    // Weekly releases: each carries the creep so far (EIA's live fetch reads the last 45 days).
    for (let end = 5; end <= creep.length + 4; end += 5) {
      const upTo = creep.slice(0, Math.min(end, creep.length));
      const at = new Date(Date.parse(`${upTo.at(-1)![0]}T15:00:00Z`) + 2 * 86_400_000).toISOString();
      expect(await run('PET.RWTC.D', upTo, at)).toMatchObject({ status: 'ok' });
    }
    expect(await latest('PRICE#CL')).toBe(creep[1]![1]);
    expect((await heldOf('PRICE#CL')).map((h) => h.value)).toEqual(creep.slice(2).map(([, v]) => v));
    expect((await heldOf('PRICE#CL')).every((h) => h.release === 'operator')).toBe(true);
    // An operator who judges the first held step real releases it: it is written, and the creep after
    // it, judged with the accepted steps before it, stays held.
    await releaseHeld(t.store, 'PRICE#CL', days[2]!);
    expect(await latest('PRICE#CL')).toBe(creep[2]![1]);
    await run('PET.RWTC.D', creep, '2026-09-30T15:00:00.000Z');
    expect(await latest('PRICE#CL')).toBe(creep[2]![1]);
    expect((await heldOf('PRICE#CL')).map((h) => h.value)).toEqual(creep.slice(3).map(([, v]) => v));
  });
});

describe('guards through runSource: the real extremes still enter', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await startTestStore();
  });
  afterAll(async () => t.close());
  const run = (seriesId: string, rows: readonly Row[], now: string) =>
    runSource({ ...eiaSpot, samples: async () => [eiaPayload(seriesId, rows, now)] }, { mode: 'replay', store: t.store, config: t.config, now: new Date(now) });

  it("Henry Hub's 13.20 of 2024-01-12 passes at once in the release that carried it (2024-01-17: 2024-01-10..16)", async () => {
    const all = sampleRows('NG.RNGWHHD.D', 655);
    const upTo = (d: string) => all.filter(([a]) => a <= d);
    // 2023's year end is not in the samples: start from the first release of 2024 and the weeks after.
    await run('NG.RNGWHHD.D', upTo('2024-01-09'), '2024-01-10T16:00:00.000Z');
    const r = await run(
      'NG.RNGWHHD.D',
      all.filter(([d]) => d >= '2024-01-10' && d <= '2024-01-16'),
      '2024-01-17T16:00:00.000Z',
    );
    expect(r).toMatchObject({ status: 'ok', quarantined: 0 });
    expect((await t.store.window('PRICE#NG', '2024-01-12', '2024-01-12', 1)).items[0]?.value).toBe(13.2);
  });

  it('every weekly release of the recorded EIA spot histories enters, but the 10x of Henry Hub in January 2026 (by release)', async () => {
    // WTI, Brent, Henry Hub 2024-2026; ULSD, gasoline 2023-2025. Replayed as EIA released them: the
    // first 60 days at once, then each Wednesday's release with the days it carries (Henry Hub
    // through Tuesday, the petroleum prices through Monday).
    const endHeld: Record<string, Array<[string, number, string]>> = {};
    const ngHeldAfter: Record<string, string[]> = {};
    for (const seriesId of ['PET.RWTC.D', 'PET.RBRTE.D', 'NG.RNGWHHD.D', 'PET.EER_EPD2DXL0_PF4_Y35NY_DPG.D', 'PET.EER_EPMRU_PF4_RGC_DPG.D']) {
      const all = sampleRows(seriesId, 700);
      // The in-memory store (the embedded one's semantics) keeps the 600 runs of this sweep quick.
      const store = new MemoryObservationStore();
      const go = (rows: readonly Row[], now: string) =>
        runSource({ ...eiaSpot, samples: async () => [eiaPayload(seriesId, rows, now)] }, { mode: 'replay', store, config: t.config, now: new Date(now) });
      const lag = seriesId === 'NG.RNGWHHD.D' ? 1 : 2;
      const releaseOf = (d: string) => {
        let ms = Date.parse(`${d}T00:00:00Z`) + lag * 86_400_000;
        while (new Date(ms).getUTCDay() !== 3) ms += 86_400_000;
        return new Date(ms).toISOString().slice(0, 10);
      };
      const weeks = new Map<string, Row[]>();
      for (const r of all.slice(60)) weeks.set(releaseOf(r[0]), [...(weeks.get(releaseOf(r[0])) ?? []), r]);
      await go(all.slice(0, 60), `${releaseOf(all[59]![0])}T15:00:00.000Z`);
      for (const [wednesday, rows] of weeks) {
        await go(rows, `${wednesday}T16:00:00.000Z`);
        if (seriesId === 'NG.RNGWHHD.D' && (wednesday === '2026-01-28' || wednesday === '2026-02-04')) {
          ngHeldAfter[wednesday] = ((await store.getRunStatus('eia-spot'))?.quarantined ?? []).map((h) => `${h.as_of} ${h.value} ${h.release}`);
        }
      }
      const held = (await store.getRunStatus('eia-spot'))?.quarantined ?? [];
      if (held.length) endHeld[seriesId] = held.map((h) => [h.as_of, h.value, h.release]);
    }
    // Henry Hub (fixtures daily.RNGWHHD): 2.92 on 2026-01-15, then 3.06, 4.0, 4.96, 8.42, 30.72 (01-23),
    // 25.01. The release of 2026-01-28 holds 30.72 (five steps up, 2.35 in log, beyond 8 standard
    // deviations) for an operator, and 25.01 (more than 5x its range) until the next release, whose
    // range holds the accepted 4.96 and 8.42.
    expect(ngHeldAfter).toEqual({
      '2026-01-28': ['2026-01-23 30.72 operator', '2026-01-26 25.01 confirmation or operator'],
      '2026-02-04': ['2026-01-23 30.72 operator'],
    });
    expect(endHeld).toEqual({ 'NG.RNGWHHD.D': [['2026-01-23', 30.72, 'operator']] });
  });
});
