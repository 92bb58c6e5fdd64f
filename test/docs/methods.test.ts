import { describe, expect, it } from 'vitest';
import { buildMethodsText } from '../../shared/docs/methods';
import { SOURCES } from '../../shared/sources/registry';

describe('methods reference: observed_at and published_at', () => {
  const text = buildMethodsText();

  it('states the rule of every source, and why observed_at is null where it is', () => {
    expect(text).toContain('## observed_at and published_at');
    for (const s of SOURCES) expect(text).toContain(`### ${s.id} (`);
    expect(text).toMatch(/### usda-wasde[^#]*observed_at: none: a WASDE figure is a projection/);
    // The holiday rules are the calendar's own words.
    expect(text).toMatch(/### eia-petroleum[^#]*Thursday 12:00 ET after a federal holiday on the Monday-Wednesday/);
    expect(text).toMatch(/### cftc-cot[^#]*the next business day \(Monday\) after a federal holiday/);
    expect(text).toMatch(/### eia-spot[^#]*observed_at: end of the as_of day, America\/New_York \(convention[^#]*CL: end of the as_of day, America\/Chicago/);
  });
});
