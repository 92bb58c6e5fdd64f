/**
 * The ceiling of the machine for `npm run bench`: a bare node:http server, in its own process,
 * answering every request with the status, headers and bytes it fetched once from the URL given.
 * Usage: node --import tsx test/bench/bare-server.ts <port> <url>
 */
import { createServer } from 'node:http';

const [port, url] = [Number(process.argv[2]), process.argv[3]!];
const sample = await fetch(url);
const bytes = Buffer.from(await sample.arrayBuffer());
const headers = Object.fromEntries(sample.headers);
createServer((_req, res) => {
  res.writeHead(sample.status, headers);
  res.end(bytes);
}).listen(port, '127.0.0.1', () => console.log(`listening on ${port}`));
