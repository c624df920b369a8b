/**
 * Layering rules of warpstate (DESIGN.md §1), checked in `npm test` by test/arch/layers.test.ts.
 *
 *   sim <- messaging <- model <- machines <- topology <- scenario / cli
 *
 * read "A <- B" as "B may import A, A never imports B". Beside the chain: `src/protocol` (message
 * kinds and payloads) sits with messaging and is imported by machines and above; `isa`,
 * `functional`, `config`, `stats`, `trace` and `frontends` are libraries that never import a
 * hardware unit. A hardware block is one folder under machines/ and imports only from src/,
 * never from another unit folder, so it can be added, removed or replaced alone.
 *
 * Parsed with swc (TypeScript 7 has no compiler API for dependency-cruiser). swc keeps
 * type-only imports, so `no-circular` also reports cycles that exist only in types (mutually
 * referencing classes such as a CTA and its kernel); the test drops a cycle when one of its
 * edges is an `import type` (erased at compile time: no cycle at run time).
 */
const ABOVE_MODEL = '^src/(topology|scenario|cli|report)/';

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycles (a cycle through an `import type` edge is dropped by the test).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'unit-imports-unit',
      severity: 'error',
      comment: 'A unit folder never imports another unit folder: shared code belongs in src/ (protocol, model).',
      from: { path: '^machines/([^/]+)/' },
      to: { path: '^machines/', pathNot: '^machines/$1/' },
    },
    {
      name: 'unit-imports-above',
      severity: 'error',
      comment: 'Units do not know how they are wired or run: no topology, scenario, CLI or report imports.',
      from: { path: '^machines/' },
      to: { path: ABOVE_MODEL },
    },
    {
      name: 'src-imports-units',
      severity: 'error',
      comment: 'Only the builders and drivers (topology, scenario, cli) know the unit folders.',
      from: { path: '^src/', pathNot: '^src/(topology|scenario|cli)/' },
      to: { path: '^machines/' },
    },
    {
      name: 'sim-is-the-bottom',
      severity: 'error',
      comment: 'The engine knows ports and links (messaging) and statistics, nothing of the GPU.',
      from: { path: '^src/sim/' },
      to: { path: '^src/(model|protocol|isa|functional|frontends|config|topology|scenario|cli|trace|report)/' },
    },
    {
      name: 'messaging-below-model',
      severity: 'error',
      comment: 'Ports, links and messages carry any payload: no GPU model, protocol or unit knowledge.',
      from: { path: '^src/messaging/' },
      to: { path: '^src/(model|protocol|isa|functional|frontends|config|topology|scenario|cli|trace|report|stats)/' },
    },
    {
      name: 'model-below-units',
      severity: 'error',
      comment: 'Datapath models (src/model) are plain code below the units: no ports, links or drivers.',
      from: { path: '^src/model/' },
      to: { path: `^src/(messaging|frontends|trace)/|${ABOVE_MODEL}` },
    },
    {
      name: 'protocol-below-units',
      severity: 'error',
      comment: 'The protocol module is data types and sizes only.',
      from: { path: '^src/protocol/' },
      to: { path: `^src/(messaging|model|frontends|config|trace|functional)/|${ABOVE_MODEL}` },
    },
    {
      name: 'topology-below-drivers',
      severity: 'error',
      comment: 'Builders do not run scenarios or parse the command line (network.ts reads a loaded scenario: allowed).',
      from: { path: '^src/topology/', pathNot: '^src/topology/network\\.ts$' },
      to: { path: '^src/(scenario|cli|report)/' },
    },
    {
      name: 'libraries-below-drivers',
      severity: 'error',
      comment: 'ISA, functional model, stats and trace never import drivers (the Accel-Sim writer of PTX runs, ptx-trace.ts, drives a scenario: allowed; config reuses the YAML source locator).',
      from: { path: '^src/(isa|functional|stats|trace|frontends|config)/', pathNot: '^src/frontends/accelsim/ptx-trace\\.ts$' },
      to: { path: '^src/(topology|cli|report)/|^src/scenario/(?!yaml-source\\.ts$)' },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
  },
};
