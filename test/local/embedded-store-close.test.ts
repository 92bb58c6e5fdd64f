/**
 * Closing the embedded store ends its connections: `npm start`'s shutdown (and every stack a test or
 * the bench starts) waits for it, and the store's own SDK client keeps idle keep-alive sockets to it
 * (keepAliveTimeout 0: they stay until the client lets go). A close that waited for them hung for good.
 */
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { startEmbeddedStore } from '../../infra/local/embedded-store';
import { createDocumentClient } from '../../shared/store/client';

/** Settles with 'closed', or 'hung' when `close` has not resolved after `ms`. */
const closedWithin = (close: Promise<void>, ms: number) =>
  Promise.race([close.then(() => 'closed'), new Promise((r) => setTimeout(() => r('hung'), ms).unref())]);

describe('embedded store close', () => {
  it('resolves with an SDK keep-alive socket idle and a raw request half sent', async () => {
    const store = await startEmbeddedStore(0);
    const doc = createDocumentClient({ DYNAMODB_ENDPOINT: store.endpoint, AWS_REGION: 'us-east-1' });
    await doc.send(new ListTablesCommand({}));
    const raw = connect(store.port, '127.0.0.1');
    await new Promise((r) => raw.once('connect', r));
    raw.write('POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n'); // a request whose head never ends
    raw.on('error', () => undefined);
    await new Promise((r) => setTimeout(r, 50));
    expect(await closedWithin(store.close(), 10_000)).toBe('closed');
    doc.destroy();
    raw.destroy();
  });
});
