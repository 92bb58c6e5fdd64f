/**
 * One POST of a delivery to a receiver: its socket's DNS lookup re-checks the receiver's addresses
 * (receiver-url.ts), redirects are not followed (a 3xx is a failed attempt), and the attempt ends
 * after a timeout. Only the status is kept of the answer.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { guardedLookup, type ResolveAll } from './receiver-url';

/** What a receiver answered: its status, or null with why there was none. */
type PostResult = { status: number; error: null } | { status: null; error: string };

/** Seconds a receiver has to answer (Standard Webhooks suggests a short timeout; the rest is retries). */
const POST_TIMEOUT_MS = 10_000;

type PostFn = (url: string, body: string, headers: Record<string, string>) => Promise<PostResult>;

/**
 * A POST function for receivers.
 * @param dev loopback receivers allowed (dev only)
 */
const createPost =
  (dev: boolean, resolve?: ResolveAll, timeoutMs = POST_TIMEOUT_MS): PostFn =>
  (url, body, headers) =>
    new Promise<PostResult>((done) => {
      const target = new URL(url);
      const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' && dev ? httpRequest : null;
      if (!send) return done({ status: null, error: `scheme ${target.protocol} is not allowed` });
      const req = send(
        target,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': String(Buffer.byteLength(body)),
            'user-agent': 'commodity-data-webhooks/1',
            ...headers,
          },
          lookup: guardedLookup(dev, resolve),
          timeout: timeoutMs,
        },
        (res) => {
          res.resume();
          res.on('end', () => done({ status: res.statusCode ?? 0, error: null }));
          res.on('error', () => done({ status: res.statusCode ?? 0, error: null }));
        },
      );
      req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
      req.on('error', (err) => done({ status: null, error: err.message.slice(0, 300) }));
      req.end(body);
    });

export { createPost };
export type { PostFn, PostResult };
