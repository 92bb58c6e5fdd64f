/**
 * Matches a concrete request path against the route table the way API Gateway does:
 * a literal segment beats a `{param}` segment, so `/v1/snapshot/all` wins over
 * `/v1/snapshot/{sector}`. Used by the local runtime; in AWS, API Gateway does it.
 */
import { ROUTES, type RouteDef } from './table';

interface RouteMatch {
  route: RouteDef;
  pathParameters: Record<string, string>;
}

interface Compiled {
  route: RouteDef;
  segments: string[];
  literals: number;
  /** Positions and texts of the literal segments, and positions and names of the parameters. */
  literalAt: ReadonlyArray<readonly [number, string]>;
  paramAt: ReadonlyArray<readonly [number, string]>;
}

const compiled: Compiled[] = ROUTES.map((route) => {
  const segments = route.path.split('/').slice(1);
  const at = segments.map((s, i) => [i, s] as const);
  return {
    route,
    segments,
    literals: segments.filter((s) => !s.startsWith('{')).length,
    literalAt: at.filter(([, s]) => !s.startsWith('{')),
    paramAt: at.filter(([, s]) => s.startsWith('{')).map(([i, s]) => [i, s.slice(1, -1)] as const),
  };
}).sort((a, b) => b.literals - a.literals);

/** The routes by number of segments (only those can match a path), in the order above. */
const bySegmentCount = new Map<number, Compiled[]>();
for (const c of compiled) bySegmentCount.set(c.segments.length, [...(bySegmentCount.get(c.segments.length) ?? []), c]);

/** The parameters of `parts` under a route of as many segments, or null when a literal differs or a parameter is empty. */
const matchSegments = (c: Compiled, parts: string[]): Record<string, string> | null => {
  // Literal segments first: most routes differ there, and need no parameter object.
  for (const [i, text] of c.literalAt) if (parts[i] !== text) return null;
  for (const [i] of c.paramAt) if (parts[i] === '') return null;
  const params: Record<string, string> = {};
  for (const [i, name] of c.paramAt) params[name] = parts[i]!;
  return params;
};

/**
 * Finds the route for a method and raw path.
 * @returns the match, `'method'` when the path exists under another method, or null.
 */
const matchRoute = (method: string, rawPath: string): RouteMatch | 'method' | null => {
  const parts = rawPath.split('/').slice(1);
  let pathExists = false;
  for (const c of bySegmentCount.get(parts.length) ?? []) {
    const params = matchSegments(c, parts);
    if (!params) continue;
    if (c.route.method !== method) {
      pathExists = true;
      continue;
    }
    const decoded: Record<string, string> = {};
    for (const [k, v] of Object.entries(params)) {
      try {
        decoded[k] = decodeURIComponent(v);
      } catch {
        decoded[k] = v; // malformed escapes reach validation as-is and are refused there
      }
    }
    return { route: c.route, pathParameters: decoded };
  }
  return pathExists ? 'method' : null;
};

export { matchRoute };
export type { RouteMatch };
