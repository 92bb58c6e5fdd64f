/**
 * Closing the embedded store while clients are still scanning and querying it (npm start's Ctrl-C
 * after long traffic) ends the process cleanly: dynalite closes its database when its server
 * closes, and a scan still reading it threw an uncaught "Iterator is not open" out of the process.
 * The store now stops taking requests, lets those in progress finish, then closes. Run in a fresh
 * process on an on-disk store, as npm start runs it, so that an uncaught error ends that process.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const SCRIPT = `
  const { mkdtempSync, rmSync } = await import('node:fs');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const { DynamoDBClient, PutItemCommand, QueryCommand, ScanCommand } = await import('@aws-sdk/client-dynamodb');
  const { startEmbeddedStore, ensureTables } = await import('./infra/local/embedded-store.ts');
  const dir = mkdtempSync(join(tmpdir(), 'store-shutdown-'));
  const store = await startEmbeddedStore(0, dir);
  await ensureTables(store.endpoint, { observations: 'observations', credits: 'credits' });
  const client = new DynamoDBClient({ endpoint: store.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'l', secretAccessKey: 'l' }, maxAttempts: 1 });
  for (let i = 0; i < 400; i++)
    await client.send(new PutItemCommand({ TableName: 'observations', Item: { pk: { S: 'P#' + (i % 5) }, sk: { S: String(i).padStart(5, '0') }, v: { S: 'x'.repeat(200) } } }));
  let stop = false;
  let answered = 0;
  const loop = async () => {
    while (!stop) {
      try {
        await client.send(new ScanCommand({ TableName: 'observations' }));
        await client.send(new QueryCommand({ TableName: 'observations', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'P#1' } } }));
        answered++;
      } catch {}
    }
  };
  const loops = Array.from({ length: 12 }, loop);
  // Close in the middle of the traffic, once every loop has been answered at least once.
  while (answered < 24) await new Promise((r) => setTimeout(r, 10));
  await store.close();
  stop = true;
  await Promise.allSettled(loops);
  await new Promise((r) => setTimeout(r, 300));
  client.destroy();
  rmSync(dir, { recursive: true, force: true });
  console.log('closed');`;

describe('embedded store shutdown under traffic', () => {
  it('closes while 12 clients scan and query: no uncaught "Iterator is not open", exit 0', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', SCRIPT], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b;
    });
    child.stderr.on('data', (b: Buffer) => {
      err += b;
    });
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, out: out.trim(), err: err.trim() }).toEqual({ code: 0, out: 'closed', err: '' });
  }, 120_000);
});
