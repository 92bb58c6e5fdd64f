import { describe, expect, it } from 'vitest';
import { BU_PER_MT, CONVERSIONS, CWT_PER_MT, LB_PER_MT, MT_PER_SHORT_TON, convert } from '../../shared/sources/units';

describe('unit conversion factors (units.ts)', () => {
  it('derives every factor from its definition, matching the printed references', () => {
    // 1 lb = 0.45359237 kg exactly -> 2204.62262 lb per metric ton (NIST HB 44).
    expect(LB_PER_MT).toBeCloseTo(2204.62262185, 8);
    expect(MT_PER_SHORT_TON).toBeCloseTo(0.90718474, 12);
    expect(CWT_PER_MT).toBeCloseTo(22.0462262185, 8);
    // USDA ERS AH-697 prints 39.3679 (corn) and 36.7437 (wheat, soybeans), rounded.
    expect(BU_PER_MT.corn).toBeCloseTo(39.3683, 4);
    expect(Math.abs(BU_PER_MT.corn - 39.3679) / 39.3679).toBeLessThan(1e-5);
    expect(BU_PER_MT.wheat).toBeCloseTo(36.7437, 4);
    expect(BU_PER_MT.soybeans).toBe(BU_PER_MT.wheat);
  });

  it.each([
    // Hand-computed: 202.01642333333 / 39.3682611 = 5.131454…
    ['maize $/mt -> USD/bu', CONVERSIONS.maizeMtToBu, 202.01642333333, 5.131454],
    // 225.19 / 36.7437103 = 6.128668… (wheat, 60 lb bushel)
    ['wheat $/mt -> USD/bu', CONVERSIONS.wheatMtToBu, 225.19, 6.128668],
    // 1126.09998352941 / 2204.62262 = 0.510790…
    ['soybean oil $/mt -> USD/lb', CONVERSIONS.mtToLb, 1126.09998352941, 0.51079],
    // 411.66 * 0.90718474 = 373.45167… USD per short ton
    ['soybean meal $/mt -> USD/short ton', CONVERSIONS.mtToShortTon, 411.66, 373.45167],
    // 9.045776322 * 0.45359237 = 4.1030951… USD/lb
    ['coffee $/kg -> USD/lb', CONVERSIONS.kgToLb, 9.045776322, 4.103095],
    // 5.61473 * 1000 = 5614.73 USD/mt
    ['cocoa $/kg -> USD/metric ton', CONVERSIONS.kgToMt, 5.61473, 5614.73],
    // 368 / 22.0462262 = 16.6922… USD/cwt
    ['rice $/mt -> USD/cwt', CONVERSIONS.mtToCwt, 368, 16.692199],
  ])('%s', (_name, c, published, expected) => {
    expect(convert(published, c)).toBeCloseTo(expected, 5);
  });

  it('rounds to 10 significant digits so no binary noise reaches a client', () => {
    expect(convert(5.61473, CONVERSIONS.kgToMt)).toBe(5614.73);
    expect(String(convert(202.01642333333, CONVERSIONS.maizeMtToBu))).toBe('5.131454061');
  });
});
