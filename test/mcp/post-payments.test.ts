/**
 * The paid work one MCP POST may start (README "MCP"): at most 32 paid tool calls, charged 4 at a
 * time, so a JSON-RPC batch cannot fan out into hundreds of claims and facilitator calls. The
 * numbers are the README's, written here by hand.
 */
import { describe, expect, it } from 'vitest';
import { PostPayments } from '../../shared/mcp/payment';

describe('PostPayments: the bounds of one MCP POST', () => {
  it('admits 32 paid calls and refuses the 33rd', () => {
    const post = new PostPayments();
    const admitted = Array.from({ length: 40 }, () => post.admit());
    expect(admitted.filter(Boolean)).toHaveLength(32);
    expect(admitted.indexOf(false)).toBe(32);
  });

  it('charges 4 calls at a time: the 5th starts only when one of the first 4 is done', async () => {
    const post = new PostPayments();
    const started: number[] = [];
    const finish: Array<() => void> = [];
    const charges = Array.from({ length: 12 }, (_, i) =>
      post.turn(
        () =>
          new Promise<void>((resolve) => {
            started.push(i);
            finish[i] = resolve;
          }),
      ),
    );
    const settle = () => new Promise<void>((r) => setImmediate(r));
    await settle();
    expect(started).toEqual([0, 1, 2, 3]);
    finish[2]!();
    await settle();
    expect(started).toEqual([0, 1, 2, 3, 4]);
    for (let i = 0; i < 12; i++) {
      finish[i]?.();
      await settle();
    }
    await Promise.all(charges);
    expect(started).toHaveLength(12);
  });
});
