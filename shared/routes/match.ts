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
}

const compiled: Compiled[] = ROUTES.map((route) => {
  const segments = route.path.split('/').slice(1);
  return { route, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
}).sort((a, b) => b.literals - a.literals);

/** The routes by number of segments (only those can match a path), in the order above. */
const bySegmentCount = new Map<number, Compiled[]>();
for (const c of compiled) bySegmentCount.set(c.segments.length, [...(bySegmentCount.get(c.segments.length) ?? []), c]);

const matchSegments = (segments: string[], parts: string[]): Record<string, string> | null => {
  if (segments.length !== parts.length) return null;
  // Literal segments first: most routes differ there, and need no parameter object.
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    if (seg.startsWith('{') ? parts[i] === '' : seg !== parts[i]) return null;
  }
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) if (segments[i]!.startsWith('{')) params[segments[i]!.slice(1, -1)] = parts[i]!;
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
    const params = matchSegments(c.segments, parts);
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
