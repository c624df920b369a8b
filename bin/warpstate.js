#!/usr/bin/env node
/**
 * The `warpstate` command (`npx warpstate`, `npm start`, `npm run warpstate`).
 *
 * Runs the built CLI, `dist/cli/main.cjs` with its V8 code cache (scripts/build.ts: `npm run
 * build`, run by `npm ci`; loaded by bin/built-cli.js), when the build is current, and the
 * TypeScript sources through tsx otherwise. Current (bin/fingerprint.js `buildIsCurrent`): every
 * source file (src/, machines/, package.json, package-lock.json, tsconfig.json, the build and
 * launcher scripts) has the size, inode and status-change time recorded in `dist/cli/stamp.json`
 * (ctime cannot be set back, so an edit, checkout or copy always shows: about 3 ms), or else
 * the SHA-256 of their paths and contents equals the recorded one (about 15 ms). A fallback
 * rather than a rebuild: old code never runs, and the launcher never writes into the
 * repository (a read-only checkout, two runs at once). A stale build is reported on stderr.
 *
 * `WARPSTATE_TSX=1` runs the sources even when the build is current (debugging, and the
 * "before" measurement of bench/startup.ts).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildIsCurrent } from './fingerprint.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The last build's stamp (`{ fingerprint, stats }`), or null when there is no readable build. */
function readStamp() {
  try {
    return JSON.parse(readFileSync(new URL('../dist/cli/stamp.json', import.meta.url), 'utf8'));
  } catch {
    return null;
  }
}

let main;
const stamp = process.env.WARPSTATE_TSX === '1' ? null : readStamp();
if (stamp !== null && buildIsCurrent(root, stamp)) {
  const { loadBuiltCli } = await import('./built-cli.js');
  ({ main } = loadBuiltCli(fileURLToPath(new URL('../dist/cli/', import.meta.url))).exports);
} else {
  if (stamp !== null) process.stderr.write('[warpstate] dist/ is older than the sources: running the sources through tsx (npm run build to rebuild)\n');
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../src/cli/main.ts'));
}
process.exitCode = await main(process.argv.slice(2));
