/**
 * A server in its own OS process over a store, chain and facilitator that already run (the
 * two-process fault test): the local HTTP server over services built from this process's
 * environment, as a Lambda instance builds them at cold start. PORT: where it listens.
 * It ends on SIGTERM, or when its parent goes away (its stdin closes), so no test leaves it behind.
 */
import { startLocalServer } from '../../infra/local/server';
import { loadConfig } from '../../shared/config';
import { createServices } from '../../shared/services';

const services = createServices(loadConfig(process.env));
const server = await startLocalServer(services, Number(process.env.PORT));
console.log(`server process ${process.pid} listening on ${server.url}`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server.close();
  services.doc?.destroy();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.resume();
