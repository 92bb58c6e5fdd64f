/**
 * Keep-alive of the local runtime under a stalled event loop (a loaded machine). A client such as
 * undici (fetch) reuses an idle socket until the advertised Keep-Alive timeout less 2 s, counted from
 * when it read the answer; the server counts from when it wrote it. When a loop turn lasts longer
 * than that difference, the client sends its next request on a socket the server is about to close,
 * and the server's keep-alive timer, which runs before the request is read, resets it (ECONNRESET in
 * a loaded `npm test`). The store client (the AWS SDK's agent) keeps idle sockets with no deadline of
 * its own, so the embedded store's keep-alive timer raced every call after a pause the same way (a
 * reset, and a retry spent). Here the stall is made on purpose, with Atomics.wait (no CPU burnt).
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalStack } from '../../infra/local/stack';
import { createDocumentClient } from '../../shared/store/client';
import { startTestStack } from '../helpers/stack';

/** Longer than node's default keep-alive (5 s, plus its 1 s margin): what an idle store socket used to get. */
const STORE_IDLE_MS = 6_500;

/** Blocks this thread (the loop of both the client and the server under test) for `ms`. */
const stallLoop = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/** Reads one HTTP/1.1 answer with a Content-Length from a raw socket: its head and body. */
const readAnswer = (socket: Socket) =>
  new Promise<{ head: string; body: string }>((resolve, reject) => {
    let buf = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const end = buf.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buf.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (buf.length < end + 4 + length) return;
      socket.off('data', onData);
      resolve({ head, body: buf.subarray(end + 4, end + 4 + length).toString('utf8') });
    };
    socket.on('data', onData);
    socket.once('error', reject);
    socket.once('end', () => reject(new Error('the server closed the socket')));
  });

const REQUEST = 'GET /llms.txt HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n';

describe('local runtime keep-alive (HTTP server and embedded store)', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startTestStack({}, false);
  });
  afterAll(() => stack?.close());

  it('a stalled loop longer than the advertised timeout: the next request on the idle socket and the next store call on its idle socket are both answered, first time', async () => {
    // An idle socket of an HTTP client (raw, so the test sees exactly what is sent and when).
    const { port } = new URL(stack.url);
    const socket = connect(Number(port), '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(REQUEST);
    const first = await readAnswer(socket);
    const advertised = Number(/\r\nkeep-alive: timeout=(\d+)/i.exec(first.head)?.[1]);
    expect(advertised).toBeGreaterThan(0);
    // An idle socket in the store client's pool.
    const doc = createDocumentClient(stack.config);
    const read = () => doc.send(new GetCommand({ TableName: stack.config.OBSERVATIONS_TABLE, Key: { pk: 'PRICE#CL', sk: '2026-01-02' } }));
    await read();

    // The loop stalls past the advertised timeout plus node's own 1 s margin (and past node's default
    // 5 s + 1 s that the store had), then both clients send in the same turn, as undici and the SDK may.
    stallLoop(Math.max(advertised * 1000 + 1500, STORE_IDLE_MS));
    const second = readAnswer(socket);
    socket.write(REQUEST);
    const stored = read();
    const answer = await second;
    expect(answer.head).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer.body).toBe(first.body);
    expect((await stored).$metadata.attempts).toBe(1);
    socket.destroy();
    doc.destroy();
  }, 30_000);
});
