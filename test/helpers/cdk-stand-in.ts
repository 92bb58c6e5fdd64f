/**
 * Stands in for `npx cdk` when test/e2e/runbook.test.ts runs the README's runbook (nothing here can
 * reach AWS): `bootstrap` has nothing to check offline; `deploy [--all | <stack>…] -c key=value…`
 * synthesizes the app with that context, as `cdk deploy` does before it deploys (the stacks of
 * infra/stacks, stub function entries, no bundling), fails as it would on a bad context, and appends
 * what it would deploy to $CDK_STAND_IN_LOG (one JSON line). Test-only.
 */
import { appendFileSync } from 'node:fs';
import { logicalId, synthService } from '../infra/synth';

const [command, ...args] = process.argv.slice(2);
if (command === 'bootstrap') {
  console.log('cdk bootstrap (stand-in): needs an AWS account; nothing to check offline');
  process.exit(0);
}
if (command !== 'deploy') {
  console.error(`cdk stand-in: "${command}" is not a runbook command`);
  process.exit(2);
}

const context: Record<string, string> = {};
const stacks: string[] = [];
let all = false;
for (let i = 0; i < args.length; i++) {
  const a = args[i]!;
  if (a === '-c' || a === '--context') {
    const [key, ...value] = (args[++i] ?? '').split('=');
    context[key!] = value.join('=');
  } else if (a === '--all') all = true;
  else if (a.startsWith('-')) {
    console.error(`cdk stand-in: option ${a} is not understood`);
    process.exit(2);
  } else stacks.push(a);
}

let s: ReturnType<typeof synthService>;
try {
  s = synthService(context);
} catch (err) {
  console.error((err as Error).message);
  process.exit(1);
}
const names = [s.data, s.api, s.ingest].map((x) => x.stackName);
const unknown = stacks.filter((n) => !names.includes(n));
if (unknown.length || (!all && stacks.length === 0)) {
  console.error(`cdk stand-in: no stack matches ${unknown.join(', ') || '(none given)'}; the app has ${names.join(', ')}`);
  process.exit(1);
}
const envOf = (template: (typeof s.templates)['api'], id: string) =>
  Object.fromEntries(
    Object.entries(template.toJSON().Resources[id].Properties.Environment.Variables as Record<string, unknown>).filter((e) => typeof e[1] === 'string'),
  );
appendFileSync(
  process.env.CDK_STAND_IN_LOG!,
  `${JSON.stringify({
    stacks: all ? names : stacks,
    context,
    price: envOf(s.templates.api, logicalId(s.api, s.api.functions.get('price')!)),
    pro: envOf(s.templates.api, logicalId(s.api, s.api.functions.get('pro')!)),
    reconciler: envOf(s.templates.api, logicalId(s.api, s.api.reconciler)),
  })}\n`,
);
console.log(`cdk deploy (stand-in): synthesized ${(all ? names : stacks).join(', ')}`);
