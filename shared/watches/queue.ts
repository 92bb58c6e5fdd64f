/**
 * The delivery queue between the fan-out and the delivery function (issue 37): SQS on AWS (its
 * retries, dead-letter queue and alarms are the construct's, infra/constructs/watches.ts), and in
 * the local runtime an in-process queue that runs `deliver` itself with bounded concurrency.
 */
import type { SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { DeliveryMessage } from './watch';

interface DeliveryQueue {
  /** Queues messages to be handled after `delayS` seconds (a queue may cap the delay; deliver re-queues until due). */
  send(messages: readonly DeliveryMessage[], delayS: number): Promise<void>;
}

/** SQS's longest message delay. */
const SQS_MAX_DELAY_S = 900;
/** SendMessageBatch takes 10 messages. */
const SQS_BATCH = 10;

/**
 * SQS. `@aws-sdk/client-sqs` is loaded on first use (only the AWS functions send; the local runtime
 * never loads it), and bundles leave it out as every `@aws-sdk/*` (infra/bundle/options.ts): on
 * Lambda the runtime's copy runs.
 */
const sqsQueue = (queueUrl: string, region: string): DeliveryQueue => {
  let loaded: Promise<{ client: SQSClient; SendMessageBatchCommand: typeof SendMessageBatchCommand }> | undefined;
  const load = () => {
    loaded ??= import('@aws-sdk/client-sqs').then((m) => ({ client: new m.SQSClient({ region }), SendMessageBatchCommand: m.SendMessageBatchCommand }));
    return loaded;
  };
  return {
    async send(messages, delayS) {
      const sqs = await load();
      for (let i = 0; i < messages.length; i += SQS_BATCH) {
        const batch = messages.slice(i, i + SQS_BATCH);
        const res = await sqs.client.send(
          new sqs.SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((m, j) => ({
              Id: String(j),
              MessageBody: JSON.stringify(m),
              DelaySeconds: Math.min(Math.max(0, Math.ceil(delayS)), SQS_MAX_DELAY_S),
            })),
          }),
        );
        if (res.Failed?.length) throw new Error(`SQS refused ${res.Failed.length} delivery message(s): ${res.Failed[0]!.Message ?? 'no reason given'}`);
      }
    },
  };
};

/**
 * The local queue: messages wait their delay on a timer, then `handle` runs them, at most
 * `concurrency` at once. `idle()` resolves when nothing is waiting or running (tests, benchmarks).
 */
class MemoryDeliveryQueue implements DeliveryQueue {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly ready: DeliveryMessage[] = [];
  private running = 0;
  private closed = false;
  private waiters: Array<() => void> = [];
  handle: (m: DeliveryMessage) => Promise<unknown> = async () => undefined;

  constructor(
    private readonly concurrency = 32,
    /** Real seconds per queued second (tests shorten the retry waits). */
    private readonly timeScale = 1,
  ) {}

  async send(messages: readonly DeliveryMessage[], delayS: number): Promise<void> {
    if (this.closed) return;
    if (delayS <= 0) {
      this.ready.push(...messages);
      this.pump();
      return;
    }
    const t = setTimeout(
      () => {
        this.timers.delete(t);
        this.ready.push(...messages);
        this.pump();
      },
      delayS * 1000 * this.timeScale,
    );
    this.timers.add(t);
  }

  private pump(): void {
    while (!this.closed && this.running < this.concurrency && this.ready.length > 0) {
      const m = this.ready.shift()!;
      this.running++;
      void this.handle(m)
        .catch(() => undefined)
        .finally(() => {
          this.running--;
          this.pump();
          this.settle();
        });
    }
    this.settle();
  }

  private settle(): void {
    if (this.running === 0 && this.ready.length === 0 && this.timers.size === 0) {
      const w = this.waiters;
      this.waiters = [];
      for (const f of w) f();
    }
  }

  /** Resolves when no message waits or runs. */
  idle(): Promise<void> {
    return new Promise((resolve) => {
      this.waiters.push(resolve);
      this.settle();
    });
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.ready.length = 0;
    this.settle();
  }
}

export { sqsQueue, MemoryDeliveryQueue };
export type { DeliveryQueue };
