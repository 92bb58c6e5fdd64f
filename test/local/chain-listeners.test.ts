/**
 * The local chain takes many connections without a MaxListenersExceededWarning: ganache's Node.js
 * server adds a listener to its own 'close' event per connection, and the 11th connection (at the
 * first local-chain payments of `npm start`) printed the warning. Run in a fresh process, as
 * `npm start` runs it, so that its stderr is the chain's alone.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const CONNECTIONS = 25;

const SCRIPT = `
  const { request } = await import('node:http');
  const { startLocalChain } = await import('./infra/local/chain/chain.ts');
  const chain = await startLocalChain();
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] });
  // A new connection per call (agent: false), as a fresh client or an idle-closed socket makes.
  const call = () => new Promise((done, fail) => {
    const req = request(chain.rpcUrl, { method: 'POST', agent: false, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => done(JSON.parse(text).result));
    });
    req.on('error', fail);
    req.end(body);
  });
  const ids = [];
  for (let i = 0; i < ${CONNECTIONS}; i++) ids.push(await call());
  await chain.close();
  console.log(ids.length, new Set(ids).size, ids[0]);`;

describe('local chain connections', () => {
  it(`${CONNECTIONS} connections: every call answered, nothing on stderr (no MaxListenersExceededWarning)`, async () => {
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
    expect({ code, out: out.trim(), err: err.trim() }).toEqual({ code: 0, out: `${CONNECTIONS} 1 0x14a34`, err: '' });
  }, 120_000);
});
