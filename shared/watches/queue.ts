/**
 * The delivery queue between the fan-out and the delivery function (issue 37): SQS on AWS (its
 * retries, dead-letter queue and alarms are the construct's, infra/constructs/watches.ts), and in
 * the local runtime an in-process queue that runs `deliver` itself with bounded concurrency.
 */
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
 * SQS. The client comes from the Lambda runtime's AWS SDK (bundles leave `@aws-sdk/*` out), loaded
 * on first use; the name is a variable because the package is not a dependency of this repository.
 */
/** What this module uses of `@aws-sdk/client-sqs`. */
interface SqsModule {
  SQSClient: new (config: { region: string }) => { send: (command: unknown) => Promise<unknown> };
  SendMessageBatchCommand: new (input: unknown) => unknown;
}

const sqsQueue = (queueUrl: string, region: string): DeliveryQueue => {
  let client: Promise<{ send: (command: unknown) => Promise<unknown>; SendMessageBatchCommand: new (input: unknown) => unknown }> | undefined;
  const SQS_MODULE = '@aws-sdk/client-sqs';
  const load = () => {
    client ??= (import(SQS_MODULE) as Promise<SqsModule>).then((m) => {
      const c = new m.SQSClient({ region });
      return { send: (cmd: unknown) => c.send(cmd), SendMessageBatchCommand: m.SendMessageBatchCommand };
    });
    return client;
  };
  return {
    async send(messages, delayS) {
      const sqs = await load();
      for (let i = 0; i < messages.length; i += SQS_BATCH) {
        const batch = messages.slice(i, i + SQS_BATCH);
        const res = (await sqs.send(
          new sqs.SendMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: batch.map((m, j) => ({
              Id: String(j),
              MessageBody: JSON.stringify(m),
              DelaySeconds: Math.min(Math.max(0, Math.ceil(delayS)), SQS_MAX_DELAY_S),
            })),
          }),
        )) as { Failed?: Array<{ Id: string; Message?: string }> };
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
