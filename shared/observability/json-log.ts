/**
 * Structured JSON log lines, written as Powertools Logger writes them for the calls this service
 * makes (test/observability/json-log.test.ts holds the lines to the library's): the same keys in the
 * same order (level, message, timestamp, service, the Lambda context once `addContext` has it,
 * sampling_rate, xray_trace_id, then the caller's fields), errors as {name, location, message,
 * stack, cause, own fields}, bigints as strings, a circular reference dropped; INFO on stdout, WARN
 * and ERROR on stderr; the level from AWS_LAMBDA_LOG_LEVEL (Lambda's log controls) if set, else
 * POWERTOOLS_LOG_LEVEL or LOG_LEVEL, else INFO (SILENT prints nothing); POWERTOOLS_DEV indents.
 * Why not the library itself: it and its shared runtime (with Powertools Metrics, about 33 KB minified)
 * were a tenth of every Lambda bundle, over the 300 KB limit of the data families (issue 14). Left out
 * as this service uses none of it: log buffering, debug sampling, persistent and temporary keys,
 * custom formatters, time zones other than UTC.
 */
import type { Context } from 'aws-lambda';

const LEVELS = Object.freeze({ TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 });
type LevelName = keyof typeof LEVELS;

/** Where a line goes: stdout for INFO, stderr for WARN and ERROR (as the library's Console). */
type WriteLog = (stream: 'stdout' | 'stderr', line: string) => void;
const processWrite: WriteLog = (stream, line) => {
  process[stream].write(`${line}\n`);
};

interface JsonLogger {
  info(message: string, fields?: Readonly<Record<string, unknown>>): void;
  warn(message: string, fields?: Readonly<Record<string, unknown>>): void;
  error(message: string, fields?: Readonly<Record<string, unknown>>): void;
  /** Adds the invocation's Lambda context to every following line. */
  addContext(context: Pick<Context, 'invokedFunctionArn' | 'awsRequestId' | 'memoryLimitInMB' | 'functionName'>): void;
}

type Env = Readonly<Record<string, string | undefined>>;

const levelOf = (env: Env): number => {
  const named = (v: string | undefined): LevelName | undefined => {
    const up = v?.trim().toUpperCase();
    // Lambda's log controls say FATAL for what the library calls CRITICAL.
    const name = up === 'FATAL' ? 'CRITICAL' : up;
    return name && name in LEVELS ? (name as LevelName) : undefined;
  };
  return LEVELS[named(env.AWS_LAMBDA_LOG_LEVEL) ?? named(env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL) ?? 'INFO'];
};

/** The library's code location of an error: the first stack frame with a `(file:line:column)`. */
const locationOf = (stack: string | undefined): string => {
  for (const frame of stack?.split('\n') ?? []) {
    const m = /\(([^()]*?):(\d+?):(\d+?)\)\\?$/.exec(frame);
    if (m) return `${m[1]}:${Number(m[2])}`;
  }
  return '';
};

/** An error as the library logs it (a cause that is an error is formatted in turn by the replacer). */
const formatError = (error: Error): Record<string, unknown> => {
  const { name, message, stack, cause } = error;
  const formatted: Record<string, unknown> = { name, location: locationOf(stack), message, stack, cause };
  for (const key in error) if (!['name', 'message', 'stack', 'cause'].includes(key)) formatted[key] = (error as unknown as Record<string, unknown>)[key];
  return formatted;
};

/** JSON.stringify's replacer: errors formatted, bigints as strings, a reference to an enclosing object dropped. */
const replacer = () => {
  const ancestors: unknown[] = [];
  return function (this: unknown, _key: string, value: unknown) {
    const v = value instanceof Error ? formatError(value) : value;
    if (typeof v === 'bigint') return v.toString();
    if (typeof v === 'object' && v !== null) {
      while (ancestors.length > 0 && ancestors.at(-1) !== this) ancestors.pop();
      if (ancestors.includes(v)) return undefined;
      ancestors.push(v);
    }
    return v;
  };
};

const traceIdOf = (env: Env): string | undefined =>
  env._X_AMZN_TRACE_ID
    ?.split(';')
    .map((part) => part.split('='))
    .find(([k]) => k === 'Root')?.[1];

/** Keys a caller's fields cannot set: dropped, with a warning line, as the library does. */
const RESERVED = new Set(['level', 'message', 'sampling_rate', 'service', 'timestamp']);

/** The line's top-level fields without those the library drops when empty (undefined, null or ''). */
const present = (fields: Record<string, unknown>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined && v !== null && v !== ''));

/**
 * A logger for a service.
 * @param env read once for the level and indentation, and on each line for the trace id (the Lambda runtime sets it per invocation)
 * @example createJsonLogger('commodity-data').info('watch delivery', { messageId: 'm-1' });
 */
const createJsonLogger = (service: string, env: Env = process.env, write: WriteLog = processWrite): JsonLogger => {
  const threshold = levelOf(env);
  const indent = env.POWERTOOLS_DEV === 'true' || env.POWERTOOLS_DEV === '1' ? 4 : 0;
  // A cold start is the first invocation of an on-demand environment (not provisioned concurrency).
  let coldStart = env.AWS_LAMBDA_INITIALIZATION_TYPE?.trim() === 'on-demand';
  let lambda: Record<string, unknown> = {};
  const log = (level: LevelName, message: string, fields: Readonly<Record<string, unknown>> = {}) => {
    if (LEVELS[level] < threshold) return;
    for (const k of Object.keys(fields).filter((key) => RESERVED.has(key))) log('WARN', `The key "${k}" is a reserved key and will be dropped.`);
    const own = Object.fromEntries(Object.entries(fields).filter(([k]) => !RESERVED.has(k)));
    const line = present({ level, message, timestamp: new Date().toISOString(), service, ...lambda, sampling_rate: 0, xray_trace_id: traceIdOf(env), ...own });
    write(level === 'INFO' ? 'stdout' : 'stderr', JSON.stringify(line, replacer(), indent));
  };
  return {
    info: (message, fields) => log('INFO', message, fields),
    warn: (message, fields) => log('WARN', message, fields),
    error: (message, fields) => log('ERROR', message, fields),
    addContext: (context) => {
      lambda = {
        cold_start: coldStart,
        function_arn: context.invokedFunctionArn,
        function_memory_size: context.memoryLimitInMB,
        function_name: context.functionName,
        function_request_id: context.awsRequestId,
      };
      coldStart = false;
    },
  };
};

export { createJsonLogger };
export type { JsonLogger, WriteLog };
