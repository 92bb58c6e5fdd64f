/**
 * `npm start`: the service on one machine, no AWS account, no internet, no Docker.
 * Data is kept under .data/ (git-ignored); delete it to re-seed from the bundled samples.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { claimDataDir, DataDirInUseError, recordStoreEndpoint } from './data-dir-lock';
import { startLocalStack } from './stack';

const port = Number(process.env.PORT ?? 8787);
const dynamoPort = Number(process.env.DYNAMODB_PORT ?? 8000);
// With X402_LOCAL_CHAIN on: a fixed RPC port, so that a buyer's script can read the chain.
const chainPort = process.env.X402_LOCAL_CHAIN_PORT || '8545';
// And a fixed facilitator port, as the chain's: a setting, not a random port each start.
const facilitatorPort = process.env.X402_LOCAL_FACILITATOR_PORT || '8402';
const dataDir = resolve(process.env.LOCAL_DATA_DIR ?? '.data/dynalite');
mkdirSync(dataDir, { recursive: true });
let release: () => void;
try {
  release = claimDataDir(dataDir);
} catch (err) {
  if (!(err instanceof DataDirInUseError)) throw err;
  console.error(err.message);
  process.exit(1);
}
process.on('exit', () => release());

// The process environment is read once, here, and handed to the stack as its settings.
const stack = await startLocalStack({
  port,
  dynamoPort,
  dataDir,
  env: { ...process.env, X402_LOCAL_CHAIN_PORT: chainPort, X402_LOCAL_FACILITATOR_PORT: facilitatorPort },
  schedules: true,
  watches: true,
  // The store on a thread of its own: the server, the fan-out and the deliveries keep this one.
  storeThread: true,
  log: (l) => console.log(l),
}).catch((err: NodeJS.ErrnoException & { port?: number }) => {
  if (err.code !== 'EADDRINUSE') throw err;
  const which =
    err.port === dynamoPort
      ? `DYNAMODB_PORT=${dynamoPort} (the embedded store)`
      : err.port === Number(chainPort)
        ? `X402_LOCAL_CHAIN_PORT=${chainPort} (the local chain)`
        : err.port === Number(facilitatorPort)
          ? `X402_LOCAL_FACILITATOR_PORT=${facilitatorPort} (the local facilitator)`
          : `PORT=${port}`;
  console.error(
    `${which} is in use by another process: choose free ports, e.g. PORT=8788 DYNAMODB_PORT=8001 X402_LOCAL_CHAIN_PORT=8546 X402_LOCAL_FACILITATOR_PORT=8403 npm start`,
  );
  process.exit(1);
});
// The operator CLIs find this store through the data folder, whatever DYNAMODB_PORT it was given.
const forgetEndpoint = recordStoreEndpoint(dataDir, stack.storeEndpoint);
process.on('exit', () => forgetEndpoint());
console.log(`embedded DynamoDB at ${stack.storeEndpoint} (data in ${dataDir})`);
console.log(`commodity data service listening on ${stack.url}`);
console.log(`try: curl ${stack.url}/v1/price/CL`);

let stopping = false;
const stop = async (signal: string) => {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: shutting down`);
  await stack.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop('SIGINT'));
process.on('SIGTERM', () => void stop('SIGTERM'));
