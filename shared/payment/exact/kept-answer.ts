/** The first answer of a paid call, kept for idempotent replays under its payment id (x402 payment-identifier). */
import { gzipSync } from 'node:zlib';
import type { AnswerToStore } from '../lane';

/** Largest stored answer (gzip): a credit-table item holds 400 KB with its keys. */
const MAX_STORED_ANSWER_BYTES = 350_000;

/** The answer kept for replays under a payment id, compressed; undefined when it cannot be kept. */
const keptAnswer = (answer: AnswerToStore, receipt: Parameters<AnswerToStore>[0], settledAt: string): { data: Uint8Array; settledAt: string } | undefined => {
  const data = gzipSync(answer(receipt));
  return data.byteLength <= MAX_STORED_ANSWER_BYTES ? { data, settledAt } : undefined;
};

export { keptAnswer };
