/**
 * The receipt signing key of a local run: generated once per data folder (an Ed25519 key in
 * PKCS#8 PEM, readable by its owner only) and kept there, so that receipts signed before a
 * restart still verify against the same published key. Deployments keep theirs as a secret.
 */
import { generateKeyPairSync } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const FILE = 'receipt-signing-key.pem';

/** The data folder's receipt key (PEM), created on first use. */
const localReceiptKey = (dataDir: string): string => {
  const path = join(dataDir, FILE);
  if (existsSync(path)) return readFileSync(path, 'utf8');
  const { privateKey } = generateKeyPairSync('ed25519');
  const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  // 'wx': two processes starting at once must not overwrite each other's key.
  try {
    writeFileSync(path, pem, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return readFileSync(path, 'utf8');
  }
  return pem;
};

/** The key of a local stack: its data folder's, or a new one for a stack held in memory. */
const receiptKeyOf = (dataDir: string | undefined): string =>
  dataDir ? localReceiptKey(dataDir) : generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

export { localReceiptKey, receiptKeyOf };
