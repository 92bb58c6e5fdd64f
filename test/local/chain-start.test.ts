/**
 * X402_LOCAL_CHAIN starts ganache quietly. ganache 7.9 has µWS binaries for Node 14-20 only: on this
 * project's Node (24) loading it printed a "Cannot find module …/uws_linux_x64_137.node" stack at
 * every start. Run in a fresh process, as `npm start` loads it.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const SCRIPT = `
  const { startLocalChain } = await import('./infra/local/chain/chain.ts');
  const chain = await startLocalChain();
  const id = await chain.publicClient.getChainId();
  await chain.close();
  console.log('chain id', id);`;

describe('local chain start', () => {
  it('prints nothing but what it was asked to, and the chain answers', async () => {
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
    expect({ code, out: out.trim(), err: err.trim() }).toEqual({ code: 0, out: 'chain id 84532', err: '' });
  }, 60_000);
});
