import { describe, expect, it } from 'vitest';
import { canonicalJson, digestOf, sha256Hex, withoutProvenance } from '../../shared/analytics/digest';

describe('canonical JSON and digests', () => {
  it('sorts keys at every depth, keeps array order, drops undefined members', () => {
    expect(canonicalJson({ b: 1, a: [true, null, { d: 'x', c: 2 }], u: undefined })).toBe('{"a":[true,null,{"c":2,"d":"x"}],"b":1}');
    expect(canonicalJson([undefined, 1.5, -0, 1e21, 'é"'])).toBe('[null,1.5,0,1e+21,"é\\""]');
    expect(canonicalJson({ B: 1, a: 2, _: 3 })).toBe('{"B":1,"_":3,"a":2}'); // UTF-16 code unit order
  });

  it('refuses values JSON cannot carry faithfully', () => {
    expect(() => canonicalJson(Number.NaN)).toThrow(/NaN/);
    expect(() => canonicalJson({ x: Infinity })).toThrow(/Infinity/);
    expect(() => canonicalJson(10n)).toThrow(/bigint/);
  });

  it('hashes with SHA-256 (FIPS 180-2 test vectors)', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(digestOf({ b: 1, a: 2 })).toBe(digestOf({ a: 2, b: 1 }));
    expect(digestOf({ a: 1 })).toBe(sha256Hex('{"a":1}'));
  });

  it('removes provenance at any depth without touching the input', () => {
    const input = { provenance: 1, x: [{ provenance: { cache_hit: true }, v: 2 }], y: { z: null } };
    expect(withoutProvenance(input)).toEqual({ x: [{ v: 2 }], y: { z: null } });
    expect(input.x[0]!.provenance).toEqual({ cache_hit: true });
  });
});
