/**
 * Counts as CloudWatch embedded metric format (EMF) lines on stdout, written as Powertools Metrics
 * writes them for the same calls (test/observability/emf.test.ts holds the lines to the library's):
 * one `service` dimension on every point, points without other dimensions buffered until `flush`
 * (a name counted twice carries both values), a dimensioned point written at once on its own line.
 * Why not the library itself: it and its shared runtime (with the logger's, about 33 KB minified) were
 * a tenth of every Lambda bundle, over the 300 KB limit of the data families (issue 14). Unlike the
 * library, an empty flush writes nothing (the library warns on every invocation without a point).
 */

/** Writes one line (default: stdout, where the Lambda runtime sends it to CloudWatch Logs). */
type WriteLine = (line: string) => void;

/** The library's limits: a line holds at most 100 metrics, and a metric at most 100 values. */
const MAX_METRICS = 100;
const MAX_VALUES = 100;

const stdoutLine: WriteLine = (line) => {
  process.stdout.write(`${line}\n`);
};

interface EmfCounter {
  /** Buffers a count under the `service` dimension alone. */
  add(name: string, value: number): void;
  /** Writes a count with its own dimensions (beside `service`) now, on a line of its own. */
  single(name: string, value: number, dimensions: Readonly<Record<string, string>>): void;
  /** Writes the buffered counts, if any, as one line. */
  flush(): void;
}

/**
 * One EMF line: the metric definitions under `_aws`, then the dimension values, then the values.
 * @param values the values of each metric (a list when a metric was counted more than once)
 */
const emfLine = (namespace: string, service: string, dimensions: Readonly<Record<string, string>>, values: Readonly<Record<string, number | number[]>>) =>
  JSON.stringify({
    _aws: {
      Timestamp: Date.now(),
      CloudWatchMetrics: [
        {
          Namespace: namespace,
          Dimensions: [[...new Set(['service', ...Object.keys(dimensions)])]],
          Metrics: Object.keys(values).map((Name) => ({ Name, Unit: 'Count' })),
        },
      ],
    },
    service,
    ...dimensions,
    ...values,
  });

/**
 * A counter writing EMF lines for a namespace and service.
 * @example const c = emfCounter('CommodityData', 'commodity-data'); c.add('PaidCalls', 1); c.flush();
 */
const emfCounter = (namespace: string, service: string, write: WriteLine = stdoutLine): EmfCounter => {
  let stored: Record<string, number | number[]> = {};
  const flush = () => {
    if (Object.keys(stored).length === 0) return;
    const line = emfLine(namespace, service, {}, stored);
    stored = {};
    write(line);
  };
  return {
    add: (name, value) => {
      if (!(name in stored) && Object.keys(stored).length >= MAX_METRICS) flush();
      const held = stored[name];
      stored[name] = held === undefined ? value : [...(Array.isArray(held) ? held : [held]), value];
      if (Array.isArray(stored[name]) && stored[name].length === MAX_VALUES) flush();
    },
    single: (name, value, dimensions) => write(emfLine(namespace, service, dimensions, { [name]: value })),
    flush,
  };
};

export { emfCounter };
export type { EmfCounter, WriteLine };
