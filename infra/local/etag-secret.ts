/**
 * The local ETag secret (issue 37): generated once per data folder and kept in it (mode 0600), so
 * tags survive a restart of `npm start` and a new data folder starts with a new secret; an in-memory
 * store (tests) gets a fresh one per stack.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type EtagKeySource, fixedEtagKey } from '../../shared/config/etag-key';

const FILE = 'etag-secret';

/** The data folder's secret (created on first use), or a fresh one without a folder. */
const localEtagKey = (dataDir?: string): EtagKeySource => {
  if (!dataDir) return fixedEtagKey();
  const path = join(dataDir, FILE);
  try {
    return fixedEtagKey(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64url'));
  } catch {
    const key = randomBytes(32);
    // 'wx': two processes starting on one folder keep the first one's secret.
    try {
      writeFileSync(path, key.toString('base64url'), { mode: 0o600, flag: 'wx' });
    } catch {
      return fixedEtagKey(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64url'));
    }
    return fixedEtagKey(key);
  }
};

export { localEtagKey };
