/**
 * The service's JSON logger (shared/observability/json-log.ts) held to Powertools Logger, the
 * library whose format it keeps: the same calls on both, with the same environment, give the same
 * lines on the same streams (the timestamp aside, which is checked for its form).
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createJsonLogger, type JsonLogger } from '../../shared/observability/json-log';

type Line = { stream: 'stdout' | 'stderr'; line: string };

const ENV_KEYS = ['POWERTOOLS_LOG_LEVEL', 'LOG_LEVEL', 'AWS_LAMBDA_LOG_LEVEL', 'AWS_LAMBDA_INITIALIZATION_TYPE', '_X_AMZN_TRACE_ID', 'POWERTOOLS_DEV'];
const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
afterEach(() => {
  for (const k of ENV_KEYS)
    if (saved[k] === undefined) delete process.env[k];
    else process.env[k] = saved[k];
  vi.restoreAllMocks();
});

/** Runs `calls` on a logger made under `env`, returning what it wrote to stdout and stderr, in order. */
const linesOf = (env: Record<string, string>, make: () => JsonLogger | Logger, calls: (l: JsonLogger) => void): Line[] => {
  for (const k of ENV_KEYS) delete process.env[k];
  Object.assign(process.env, env);
  const lines: Line[] = [];
  const capture = (stream: Line['stream']) => (chunk: string | Uint8Array) => {
    lines.push({ stream, line: String(chunk) });
    return true;
  };
  vi.spyOn(process.stdout, 'write').mockImplementation(capture('stdout'));
  vi.spyOn(process.stderr, 'write').mockImplementation(capture('stderr'));
  try {
    calls(make() as JsonLogger);
  } finally {
    vi.restoreAllMocks();
  }
  return lines;
};

/** Each line parsed, its timestamp checked for the library's form (UTC ISO 8601) and set aside. */
const comparable = (lines: Line[]) =>
  lines.map(({ stream, line }) => {
    expect(line.endsWith('\n')).toBe(true);
    const { timestamp, ...rest } = JSON.parse(line) as Record<string, unknown>;
    expect(timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    return { stream, keys: Object.keys(JSON.parse(line) as object), fields: rest };
  });

const both = (env: Record<string, string>, calls: (l: JsonLogger) => void) => ({
  ours: comparable(linesOf(env, () => createJsonLogger('commodity-data', process.env), calls)),
  library: comparable(linesOf(env, () => new Logger({ serviceName: 'commodity-data' }), calls)),
});

const context = (requestId: string) => ({
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:price',
  awsRequestId: requestId,
  memoryLimitInMB: '512',
  functionName: 'price',
});

describe('JSON logger, held to Powertools Logger', () => {
  it('writes the same lines for what the service logs: fields, errors with causes, bigints, context, trace id', () => {
    const env = { AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand', _X_AMZN_TRACE_ID: 'Root=1-6747a1b2-0123456789abcdef01234567;Parent=53995c3f42cd8ad8;Sampled=1' };
    // One error for both loggers: its stack names where it was made.
    const cause = new TypeError('socket hang up');
    const error = Object.assign(new Error('facilitator /settle failed', { cause }), { code: 'ECONNRESET' });
    const { ours, library } = both(env, (l) => {
      l.info('watch fan-out', { release: 'eia-wpsr', delivered: 3, amount: 10_000n, nested: { codes: ['CL', 'BZ'] }, empty: '', none: null });
      l.addContext(context('req-1'));
      l.error('request failed', { requestId: 'r-1', routeKey: 'GET /v1/price/{code}', error });
      l.warn('stale sources', { stale: [{ source: 'eia-spot', reason: 'late', last_error: undefined }] });
      l.addContext(context('req-2'));
      l.info('x402 reconciliation pass', { level: 'ignored', message: 'ignored', open: 0 });
    });
    expect(ours).toEqual(library);
    // What the comparison covers: the cold start on every line of the first invocation only, both streams,
    // the reserved keys' warnings.
    expect(library.map((l) => [l.stream, l.fields.cold_start])).toEqual([
      ['stdout', undefined],
      ['stderr', true],
      ['stderr', true],
      ['stderr', false],
      ['stderr', false],
      ['stdout', false],
    ]);
    expect(library[1]?.fields.error).toMatchObject({ name: 'Error', code: 'ECONNRESET', cause: { name: 'TypeError', message: 'socket hang up' } });
  });

  it('drops a reference to an enclosing object as the library does', () => {
    const loop: Record<string, unknown> = { id: 'a' };
    loop.self = loop;
    const { ours, library } = both({}, (l) => l.info('loop', { loop, twice: [{ x: 1 }, { x: 1 }] }));
    expect(ours).toEqual(library);
    expect(library[0]?.fields.loop).toEqual({ id: 'a' });
  });

  it.each([
    [{ POWERTOOLS_LOG_LEVEL: 'WARN' }, 2],
    [{ LOG_LEVEL: 'ERROR' }, 1],
    [{ AWS_LAMBDA_LOG_LEVEL: 'ERROR' }, 1],
    [{ POWERTOOLS_LOG_LEVEL: 'SILENT' }, 0],
    [{}, 3],
  ])('takes its level from the environment as the library does: %o', (env, count) => {
    const { ours, library } = both(env, (l) => {
      l.info('i');
      l.warn('w');
      l.error('e');
    });
    expect(library).toHaveLength(count);
    expect(ours).toEqual(library);
  });
});
