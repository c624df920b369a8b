/**
 * Layering rules of warpstate (DESIGN.md §1; issue 8 item 8), checked in `npm test` by
 * test/arch/layers.test.ts over src/ and machines/.
 *
 *   sim <- messaging <- model <- machines <- topology <- scenario / cli
 *
 * read "A <- B" as "B may import A, A never imports B". How the folders of today sit on it:
 * - `src/sim` is two levels. Its core (time, event queue, PRNG) is the bottom and imports only
 *   `src/errors.ts`. The engine, the unit contract and the lifecycle helper sit just above
 *   messaging: the engine owns the ports and links and the statistics registry, so they may
 *   import `src/messaging` and `src/stats`, and nothing else.
 * - `src/messaging` (envelope, ports, links) knows only the sim core: a port carries any payload.
 * - `src/protocol` (GPU message kinds, payloads, packet sizes) is the message-kind layer beside
 *   messaging: data types over time and ISA types, nothing that runs.
 * - `src/model` (plain datapath models: caches, MSHRs, coalescer, scoreboard, DRAM timing ...)
 *   may use sim, messaging, protocol, the ISA and functional model (an instruction, a warp's
 *   step) and the config's small parsers (address mapping strings); never a unit, a builder or
 *   a driver. Written as allowlists so a new folder is outside until a rule admits it.
 * - `isa`, `functional`, `config`, `stats`, `trace` and `frontends` are libraries beside the
 *   chain: they never import a unit folder nor a builder or driver (two reasoned exceptions).
 * - A hardware block is one folder `machines/<kind>/`: it imports only from src/ below the
 *   builders, never from another unit folder, so it can be added, removed or replaced alone.
 *   Only the builders and drivers (topology, scenario, cli) know the unit folders.
 *
 * Parsed with swc: TypeScript 7 has no compiler API that dependency-cruiser's `tsc` parser
 * could load. swc keeps type-only imports without marking them, so `no-circular` also reports
 * cycles that exist only in types (mutually referencing classes such as a CTA and its kernel);
 * the test drops a cycle when one of its edges is an `import type` (erased at compile time: no
 * cycle at run time) and fails on every other one.
 */
const DRIVERS = '^src/(topology|scenario|cli|report)/';
const SIM_CORE = 'sim/(time|event-queue|prng)\\.ts$';

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
      to: { path: DRIVERS },
    },
    {
      name: 'src-imports-units',
      severity: 'error',
      comment: 'Only the builders and drivers (topology, scenario, cli) know the unit folders.',
      from: { path: '^src/', pathNot: '^src/(topology|scenario|cli)/' },
      to: { path: '^machines/' },
    },
    {
      name: 'sim-core-is-the-bottom',
      severity: 'error',
      comment: 'Time, the event queue and the PRNG import nothing of the project but the error types.',
      from: { path: `^src/${SIM_CORE}` },
      to: { path: '^src/', pathNot: `^src/(errors\\.ts$|${SIM_CORE})` },
    },
    {
      name: 'engine-below-model',
      severity: 'error',
      comment: 'The engine, unit contract and lifecycle know ports, links and statistics, nothing of the GPU.',
      from: { path: '^src/sim/' },
      to: { path: '^src/', pathNot: '^src/(errors\\.ts$|sim/|messaging/|stats/)' },
    },
    {
      name: 'messaging-above-sim-core',
      severity: 'error',
      comment: 'Ports, links and messages carry any payload: only the sim core (time, queue) below them.',
      from: { path: '^src/messaging/' },
      to: { path: '^src/', pathNot: `^src/(errors\\.ts$|messaging/|${SIM_CORE})` },
    },
    {
      name: 'protocol-is-data',
      severity: 'error',
      comment: 'Message kinds, payload types and packet sizes: data over sim time and ISA types only.',
      from: { path: '^src/protocol/' },
      to: { path: '^src/', pathNot: '^src/(errors\\.ts$|protocol/|sim/|isa/)' },
    },
    {
      name: 'model-below-units',
      severity: 'error',
      comment: 'Datapath models use sim, messaging, protocol, ISA, functional model and config parsers; no units, builders or drivers.',
      from: { path: '^src/model/' },
      to: { path: '^src/', pathNot: '^src/(errors\\.ts$|model/|sim/|messaging/|protocol/|isa/|functional/|config/)' },
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
      comment: 'ISA, functional model, stats, trace, config and front ends never import builders or drivers. Exceptions: the Accel-Sim writer of PTX runs (ptx-trace.ts) drives a scenario; config reuses the YAML source locator of the scenario loader.',
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
