/**
 * The per-payer verify slots, shared by every exact call of this process: a payer with
 * MAX_VERIFIES_PER_PAYER verifications in flight is claimed first and then waits for a slot, so
 * copies and floods cost no facilitator call.
 */
import { Semaphore } from '../../concurrency/semaphore';

/** Payments of one payer this process verifies at once; more are claimed first and wait their turn. */
const MAX_VERIFIES_PER_PAYER = 8;

/** Payer -> its verifications in flight here (dropped when idle). */
const slots = new Map<string, Semaphore>();

/** Whether a slot of the payer is free now (the claim and /verify can then run at once). */
const slotFree = (payer: string): boolean => slots.get(payer)?.free ?? true;

/** Runs `fn` in one of the payer's verify slots, waiting for one to free up. */
const withVerifySlot = async <T>(payer: string, fn: () => Promise<T>): Promise<T> => {
  let s = slots.get(payer);
  if (!s) {
    s = new Semaphore(MAX_VERIFIES_PER_PAYER);
    slots.set(payer, s);
  }
  try {
    return await s.run(fn);
  } finally {
    if (s.idle) slots.delete(payer);
  }
};

export { MAX_VERIFIES_PER_PAYER, slotFree, withVerifySlot };
