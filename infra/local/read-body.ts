/**
 * Reads a node:http request body, refusing one larger than `maxBytes` (local servers only). An
 * oversized body is drained, not cut off, so the caller can still answer it (413).
 */
import type { IncomingMessage } from 'node:http';

const readBody = (req: IncomingMessage, maxBytes: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= maxBytes) chunks.push(c);
    });
    req.on('end', () => (size > maxBytes ? reject(new Error('body too large')) : resolve(Buffer.concat(chunks))));
    req.on('error', reject);
  });

export { readBody };
