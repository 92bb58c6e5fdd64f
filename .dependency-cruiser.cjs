/**
 * Layering rules checked by `npm run lint:deps` (part of `npm test`): no cycle between the
 * top-level folders of shared/, and the pure core never reaches the edges.
 */
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycles',
      comment: 'A cycle between top-level folders of shared/ (e.g. http -> payment -> http) couples layers that must stay apart.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^shared/' },
      to: { path: '^shared/', circular: true },
    },
    {
      name: 'pure-core-stays-pure',
      comment: 'analytics, catalog, observation, dates and calendar are pure: no AWS SDK, no HTTP pipeline, no services.',
      severity: 'error',
      from: { path: '^shared/(analytics|catalog|observation|dates|calendar)/' },
      to: { path: ['^node_modules/@aws-sdk/', '^shared/(http|services|payment|families|store|sources|docs|mcp|pro)/'] },
    },
    {
      name: 'schemas-describe-bodies-only',
      comment: 'Response-body schemas build on the observation contract and the catalog, nothing that serves or stores.',
      severity: 'error',
      from: { path: '^shared/schemas/' },
      to: { path: '^shared/', pathNot: ['^shared/(schemas|catalog|observation)/', '^shared/zod\\.ts$'] },
    },
    {
      name: 'docs-do-not-import-families',
      severity: 'error',
      from: { path: '^shared/docs/' },
      to: { path: '^shared/families/' },
    },
    {
      name: 'shared-does-not-import-entries-or-infra',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(functions|infra|test)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: 'node_modules' },
  },
};
