/**
 * Lets the conformance suite load on Node 20. Its bundle imports `globSync` from 'fs' (Node >= 22)
 * at the top, though only its `tier-check` command calls it; the `server` mode this project runs
 * never does. This hook hands that one bundle an 'fs' that also exports a globSync which says so.
 * Registered with `node --import` by test/mcp/conformance.test.ts; a no-op where fs has globSync.
 */
import * as fs from 'node:fs';
import { register } from 'node:module';

if (!('globSync' in fs)) {
  const shim = `export * from 'node:fs'; export { default } from 'node:fs';
export const globSync = () => { throw new Error('fs.globSync needs Node >= 22 (only the suite\\'s tier-check uses it)'); };`;
  const hooks = `export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: 'data:text/javascript,' + encodeURIComponent(${JSON.stringify(shim)}), shortCircuit: true };
  }
  return next(specifier, context);
}`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`);
}
