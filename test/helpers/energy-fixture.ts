/**
 * A hand-built energy data set for the snapshot and decision tests (synthetic values chosen so
 * every rule's outcome can be checked by hand; see test/e2e/decision.test.ts).
 */
import type { SeriesItem } from '../../shared/store/observation-store';
import { cotObs, inventoryObs, weekdaySeries, weekly } from './seed-observations';

/**
 * Latest trading day of the set (a Monday); the six weekdays run 2025-06-09..2025-06-16, after a
 * year of weekdays from 2024-06-17 at the middle of each range (so the 1-year window is covered
 * and min, max and position are those of the six values).
 */
const ENERGY_END = '2025-06-16';

/** Price values per code, oldest first, on the six weekdays ending ENERGY_END. */
const ENERGY_PRICES: Readonly<Record<string, number[]>> = Object.freeze({
  CL: [60, 62, 64, 66, 68, 70], // latest at the top of its range -> position 100
  BZ: [70, 69, 68, 67, 66, 65], // at the bottom -> 0
  NG: [3, 3.5, 3, 3.5, 3, 3.25], // (3.25 - 3) / 0.5 = 50
  HO: [2.0, 2.1, 2.2, 2.3, 2.4, 2.5], // 100
  RB: [2.0, 2.0, 2.0, 2.0, 2.0, 2.0], // flat
});

/**
 * Crude stocks: 420,000 Mbbl every Friday for 5 years, then a 5,000 Mbbl draw in the latest
 * week, so the change is -5,000, every prior-year change is 0 and the surprise is -5,000.
 */
const crudeStocks = (): SeriesItem[] => {
  const weeks = weekly('2020-06-05', '2025-06-13');
  return weeks.map((d, i) => inventoryObs('crude_ex_spr', d, i === weeks.length - 1 ? 415_000 : 420_000));
};

/** CL COT: Tuesdays 2022-06-14..2025-06-10 (157 reports), net rising every week, so the latest is the 3-year high. */
const clPositioning = (): SeriesItem[] => weekly('2022-06-14', '2025-06-10').map((d, i) => cotObs('CL', d, 100_000 + i * 100, 50_000));

/** Weekdays 2024-06-17..2025-06-16: 52 weeks of 5 and Monday 06-16, 261; the six values are the last of them. */
const PAD_WEEKDAYS = 261 - 6;

const paddedYear = (values: readonly number[]): number[] => {
  const mid = (Math.min(...values) + Math.max(...values)) / 2;
  return [...Array<number>(PAD_WEEKDAYS).fill(mid), ...values];
};

const energyItems = (): SeriesItem[] => [
  ...Object.entries(ENERGY_PRICES).flatMap(([code, values]) => weekdaySeries(code, ENERGY_END, paddedYear(values))),
  ...crudeStocks(),
  ...clPositioning(),
];

export { ENERGY_PRICES, energyItems };
