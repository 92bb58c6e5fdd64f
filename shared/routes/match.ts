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

const matchSegments = (segments: string[], parts: string[]): Record<string, string> | null => {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const part = parts[i]!;
    if (seg.startsWith('{')) {
      if (part === '') return null;
      params[seg.slice(1, -1)] = part;
    } else if (seg !== part) return null;
  }
  return params;
};

/**
 * Finds the route for a method and raw path.
 * @returns the match, `'method'` when the path exists under another method, or null.
 */
const matchRoute = (method: string, rawPath: string): RouteMatch | 'method' | null => {
  const parts = rawPath.split('/').slice(1);
  let pathExists = false;
  for (const c of compiled) {
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
