import { describe, expect, it } from 'vitest';
import { eiaSpot } from '../../shared/sources/eia-spot';
import { fred } from '../../shared/sources/fred';
import { observedAtOf } from '../../shared/sources/observed-at';
import { findSource, SOURCES } from '../../shared/sources/registry';
import { normalizeCtx, payload } from '../helpers/sources';

// Offsets worked by hand: New York EDT UTC-4 / EST UTC-5, Chicago CDT UTC-5 / CST UTC-6, London BST UTC+1.
const obs = (id: string, instrument: string, asOf: string) => observedAtOf(findSource(id)!, instrument, asOf);

describe('observed_at: the moment each source figure describes', () => {
  it('daily spot prices: the end of the as_of day where each market trades, labelled as a convention', () => {
    expect(obs('eia-spot', 'CL', '2025-06-16')).toEqual({ at: '2025-06-17T04:59:59.000Z', basis: expect.stringMatching(/America\/Chicago \(convention/) });
    expect(obs('eia-spot', 'CL', '2026-01-15').at).toBe('2026-01-16T05:59:59.000Z'); // CST
    expect(obs('eia-spot', 'BZ', '2025-06-16').at).toBe('2025-06-16T22:59:59.000Z'); // London, BST
    expect(obs('eia-spot', 'HO', '2025-06-16').at).toBe('2025-06-17T03:59:59.000Z'); // New York, EDT
  });

  it('FX: the noon buying rate the Fed states (12:00 New York); the dollar index: end of day, labelled', () => {
    expect(obs('fred', 'EURUSD', '2025-11-28')).toEqual({ at: '2025-11-28T17:00:00.000Z', basis: expect.stringMatching(/noon buying rate/) });
    expect(obs('fred', 'DTWEXBGS', '2025-11-28')).toEqual({ at: '2025-11-29T04:59:59.000Z', basis: expect.stringMatching(/convention/) });
  });

  it('weekly series: the end of the reference week (WPSR: Friday 07:00 ET as EIA states it)', () => {
    expect(obs('eia-petroleum', 'crude_ex_spr', '2026-02-06').at).toBe('2026-02-06T12:00:00.000Z'); // 07:00 EST
    expect(obs('eia-gas-storage', 'ng_storage', '2026-01-23').at).toBe('2026-01-24T04:59:59.000Z');
    expect(obs('cftc-cot', 'CL', '2026-04-14').at).toBe('2026-04-15T03:59:59.000Z'); // close of business Tuesday, EDT
    expect(obs('usda-fas-esr', 'ESR:soybeans', '2022-03-31').at).toBe('2022-04-01T03:59:59.000Z');
    expect(obs('usda-nass-crop-progress', 'CROP:corn:planted', '2025-06-08').at).toBe('2025-06-09T03:59:59.000Z');
  });

  it('monthly and annual figures: the end of the month (a leap February included) or year they cover', () => {
    expect(obs('worldbank', 'GC', '2025-11-01').at).toBe('2025-11-30T23:59:59.000Z');
    expect(obs('worldbank', 'GC', '2024-02-01').at).toBe('2024-02-29T23:59:59.000Z');
    expect(obs('usgs-mcs', 'USGS:copper:production', '2025-12-31').at).toBe('2025-12-31T23:59:59.000Z');
  });

  it('is null only for WASDE projections, and says why', () => {
    expect(obs('usda-wasde', 'WASDE:corn:US', '2025-05-01')).toEqual({ at: null, basis: expect.stringMatching(/^none: .*projection/) });
    for (const s of SOURCES.filter((x) => x.id !== 'usda-wasde')) expect(observedAtOf(s, 'X', '2026-01-15').at, s.id).not.toBeNull();
  });
});

describe('adapters: observed_at and published_at come from the registry and the publisher calendar', () => {
  it('an EIA spot price: end of its Cushing day, published in the next Wednesday release', () => {
    const body = JSON.stringify({ response: { total: '1', data: [{ period: '2025-06-16', series: 'RWTC', value: '72.53', units: '$/BBL' }] } });
    const [item] = eiaSpot.toItems(payload('eia-spot/PET.RWTC.D.json', body), normalizeCtx(eiaSpot.def));
    expect(item!.observation).toMatchObject({
      observed_at: '2025-06-17T04:59:59.000Z',
      published_at: '2025-06-18T14:40:51.000Z', // Wed 18 June 2025, 10:40:51 EDT: the stamp of EIA's workbook of that release
      attributes: { published_at_estimated: false, observed_at_basis: expect.stringMatching(/convention/) },
    });
  });

  it('a FRED FX rate: noon New York, published in the H.10 of the Monday after (estimated)', () => {
    const [item] = fred.toItems(payload('fred/DEXUSEU.csv', 'observation_date,DEXUSEU\n2025-11-28,1.1598\n'), normalizeCtx(fred.def));
    expect(item!.observation).toMatchObject({
      observed_at: '2025-11-28T17:00:00.000Z',
      published_at: '2025-12-01T21:15:00.000Z', // Mon 1 Dec 2025, 16:15 EST
      attributes: { published_at_estimated: true },
    });
  });
});
