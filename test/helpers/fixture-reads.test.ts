/**
 * `npm test` passes in a clone without ../shared/fixtures: every test that reads a recorded payload
 * does it through fixtureBytes / fixtureText (helpers/fixtures.ts) and only where it is guarded by
 * HAVE_FIXTURES, so without the fixtures it skips instead of failing with ENOENT. Checked on the
 * test sources' syntax trees (TypeScript's parser), so it holds in a clone that has the fixtures too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const TEST_DIR = fileURLToPath(new URL('..', import.meta.url));
/** The helper itself, and this check (its probes name what it looks for). */
const EXEMPT = new Set(['helpers/fixtures.ts', 'helpers/fixture-reads.test.ts']);
const READERS = new Set(['fixtureBytes', 'fixtureText']);
/** Callbacks that run only when their test runs (a skipped describe still runs its own body). */
const TEST_BODIES = new Set(['it', 'test', 'beforeAll', 'beforeEach', 'afterAll', 'afterEach']);

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));

/** The leftmost name of a callee: `describe` of describe.skipIf(x).each(…). */
const rootName = (e: ts.Expression): string | undefined => {
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e) || ts.isCallExpression(e)) return rootName(e.expression);
  return undefined;
};

/** Whether a callee carries the guard: X.skipIf(!HAVE_FIXTURES) or X.runIf(HAVE_FIXTURES), anywhere in its chain. */
const carriesGuard = (e: ts.Expression): boolean => {
  if (ts.isCallExpression(e)) {
    const callee = e.expression;
    if (ts.isPropertyAccessExpression(callee)) {
      const arg = e.arguments[0]?.getText().replace(/\s/g, '');
      if ((callee.name.text === 'skipIf' && arg === '!HAVE_FIXTURES') || (callee.name.text === 'runIf' && arg === 'HAVE_FIXTURES')) return true;
    }
    return carriesGuard(callee);
  }
  return ts.isPropertyAccessExpression(e) ? carriesGuard(e.expression) : false;
};

/** The reads and the places that name the fixtures directory itself, in one file. */
const unguardedReads = (file: string, text = readFileSync(file, 'utf8')): string[] => {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const problems: string[] = [];
  const where = (n: ts.Node) => `${relative(TEST_DIR, file)}:${sf.getLineAndCharacterOfPosition(n.getStart()).line + 1}`;
  /** Where each name is used (called, or passed on as in `.map(helper)`), declarations aside. */
  const usesOf = new Map<string, ts.Identifier[]>();
  const all: ts.Node[] = [];
  const visit = (n: ts.Node) => {
    all.push(n);
    const declared =
      n.parent !== undefined &&
      (ts.isVariableDeclaration(n.parent) ||
        ts.isFunctionDeclaration(n.parent) ||
        ts.isPropertyAccessExpression(n.parent) ||
        ts.isPropertyAssignment(n.parent)) &&
      n.parent.name === n;
    if (ts.isIdentifier(n) && !declared) usesOf.set(n.text, [...(usesOf.get(n.text) ?? []), n]);
    ts.forEachChild(n, visit);
  };
  visit(sf);

  /** The uses of a helper in the block that declares it (a name may be declared again elsewhere). */
  const usesIn = (name: string, declaration: ts.Node): ts.Identifier[] => {
    let scope: ts.Node = declaration.parent;
    while (!ts.isBlock(scope) && !ts.isSourceFile(scope)) scope = scope.parent;
    const inScope = (u: ts.Node): boolean => (u === scope ? true : u.parent ? inScope(u.parent) : false);
    return (usesOf.get(name) ?? []).filter(inScope);
  };

  const guarded = (node: ts.Node, seen: Set<string>): boolean => {
    let inTestBody = false;
    for (let child = node, n = node.parent; n; child = n, n = n.parent) {
      if (ts.isConditionalExpression(n) && child === n.whenTrue && n.condition.getText() === 'HAVE_FIXTURES') return true;
      if (ts.isIfStatement(n) && child === n.thenStatement && n.expression.getText() === 'HAVE_FIXTURES') return true;
      if (ts.isCallExpression(n) && n.arguments.includes(child as ts.Expression)) {
        const root = rootName(n.expression);
        if (carriesGuard(n.expression)) {
          if (root === 'it' || root === 'test' || inTestBody) return true;
        } else if (root && TEST_BODIES.has(root) && (ts.isArrowFunction(child) || ts.isFunctionExpression(child))) {
          inTestBody = true;
        }
      }
      // Inside a helper of this file: guarded when every call of it is.
      if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.initializer === child && (ts.isArrowFunction(child) || ts.isFunctionExpression(child))) {
        const name = n.name.text;
        if (seen.has(name)) return true;
        const uses = usesIn(name, n);
        return uses.length > 0 && uses.every((u) => guarded(u, new Set([...seen, name])));
      }
      if (ts.isFunctionDeclaration(n) && n.name) {
        const name = n.name.text;
        if (seen.has(name)) return true;
        const uses = usesIn(name, n);
        return uses.length > 0 && uses.every((u) => guarded(u, new Set([...seen, name])));
      }
    }
    return false;
  };

  for (const n of all) {
    const isRead =
      (ts.isCallExpression(n) && ts.isIdentifier(n.expression) && READERS.has(n.expression.text)) ||
      (ts.isIdentifier(n) && READERS.has(n.text) && !ts.isImportSpecifier(n.parent) && !ts.isCallExpression(n.parent));
    if (isRead && !guarded(n, new Set())) problems.push(`${where(n)} reads a fixture without a HAVE_FIXTURES guard`);
    if (ts.isIdentifier(n) && n.text === 'FIXTURES') problems.push(`${where(n)} names the fixtures directory: read through fixtureBytes / fixtureText`);
    if (
      (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n) || ts.isTemplateHead(n) || ts.isTemplateMiddle(n) || ts.isTemplateTail(n)) &&
      /shared\/fixtures/.test(n.text)
    ) {
      // A describe or test title may name where its payloads come from.
      const call = n.parent;
      const title = ts.isCallExpression(call) && call.arguments[0] === n && ['describe', 'it', 'test'].includes(rootName(call.expression) ?? '');
      if (!title) problems.push(`${where(n)} builds a path into ../shared/fixtures: read through fixtureBytes / fixtureText`);
    }
  }
  return problems;
};

describe('fixture reads', () => {
  const files = sources(TEST_DIR).filter((f) => !EXEMPT.has(relative(TEST_DIR, f)));

  it('every read of ../shared/fixtures goes through the guarded helper, under a HAVE_FIXTURES guard', () => {
    expect(files.flatMap((f) => unguardedReads(f))).toEqual([]);
  });

  it('the check finds what it is for (an unguarded read, a read in a helper called unguarded, a raw path)', () => {
    // Parsed from memory, written nowhere.
    const probe = (code: string) => unguardedReads(join(TEST_DIR, 'probe.test.ts'), code);
    expect(probe(`it('x', () => { fixtureText('a.csv'); });`)).toHaveLength(1);
    expect(probe(`it.skipIf(!HAVE_FIXTURES)('x', () => { fixtureText('a.csv'); });`)).toEqual([]);
    expect(probe(`const f = () => fixtureText('a.csv');\nit('x', () => f());`)).toHaveLength(1);
    expect(probe(`const f = () => fixtureText('a.csv');\ndescribe.runIf(HAVE_FIXTURES)('d', () => { it('x', () => f()); });`)).toEqual([]);
    // A skipped describe still runs its body: a read there needs its own guard.
    expect(probe(`describe.skipIf(!HAVE_FIXTURES)('d', () => { const x = fixtureBytes('a'); it('x', () => x); });`)).toHaveLength(1);
    expect(probe(`describe.skipIf(!HAVE_FIXTURES)('d', () => { const x = HAVE_FIXTURES ? fixtureBytes('a') : null; it('x', () => x); });`)).toEqual([]);
    expect(probe(`const p = '../../../shared/fixtures/eia/x.csv';`)).toHaveLength(1);
    expect(probe(`describe('contract (../shared/fixtures/eia)', () => {});`)).toEqual([]);
  });
});
