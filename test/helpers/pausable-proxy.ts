/**
 * A TCP proxy that can stop answering: while paused it holds every byte in both directions, the
 * way a stalled store or a partitioned network looks to a client. Fault tests put it between the
 * service and the embedded store.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

interface PausableProxy {
  /** The proxy's port (point DYNAMODB_ENDPOINT at it). */
  port: number;
  pause(): void;
  isPaused(): boolean;
  /** Delivers what was held, late (a write that timed out at the client may still land). */
  resume(): void;
  /** Discards what was held and resets the connections (the writes are lost), then answers again. */
  resumeDropping(): void;
  /** Connections the client gave up on (closed) while paused: a store call that timed out during the stall. */
  abandoned(): number;
  close(): Promise<void>;
}

/** A pipe that queues chunks while paused and flushes them in order on resume. */
const gate = (from: Socket, to: Socket, isPaused: () => boolean, held: Array<() => void>) => {
  from.on('data', (chunk: Buffer) => {
    if (isPaused()) held.push(() => to.write(chunk));
    else to.write(chunk);
  });
};

/**
 * Starts a proxy on a free loopback port to `targetPort`.
 * @example const proxy = await startPausableProxy(storePort); proxy.pause(); … proxy.resume();
 */
const startPausableProxy = async (targetPort: number): Promise<PausableProxy> => {
  let paused = false;
  let abandoned = 0;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    client.on('close', () => {
      if (paused) abandoned++;
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => {
        sockets.delete(s);
        client.destroy();
        upstream.destroy();
      });
    }
    gate(client, upstream, () => paused, held);
    gate(upstream, client, () => paused, held);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    pause: () => {
      paused = true;
    },
    isPaused: () => paused,
    resume: () => {
      paused = false;
      for (const flush of held.splice(0)) flush();
    },
    abandoned: () => abandoned,
    resumeDropping: () => {
      held.length = 0;
      for (const s of sockets) s.destroy();
      paused = false;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

export { startPausableProxy };
export type { PausableProxy };
