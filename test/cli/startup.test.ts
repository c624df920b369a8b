/**
 * Issue 11 item 1: the built CLI (scripts/build.ts, bin/built-cli.js), the launcher's staleness
 * check (bin/fingerprint.js) and the lazy imports of src/cli/main.ts. Start-up time itself is
 * measured by bench/startup.ts, never asserted here.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildIsCurrent, FINGERPRINT_FILES, sourceFingerprint, sourceStats } from '../../bin/fingerprint.js';
import { loadBuiltCli } from '../../bin/built-cli.js';
import { buildCli, REPO_ROOT, unitFolders } from '../../scripts/build.ts';
import { main } from '../../src/cli/main.ts';

const tmp = mkdtempSync(join(tmpdir(), 'warpstate-startup-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Runs `main` in this process and returns [exit code, stdout]. */
async function runSource(argv: string[]): Promise<[number, string]> {
  let out = '';
  const code = await main(argv, (s) => void (out += s), () => {});
  return [code, out];
}

describe('launcher staleness check (bin/fingerprint.js)', () => {
  /** A fake repository holding every fingerprinted file. */
  function fakeRepo(): string {
    const root = mkdtempSync(join(tmp, 'repo-'));
    for (const f of FINGERPRINT_FILES) {
      mkdirSync(join(root, f, '..'), { recursive: true });
      writeFileSync(join(root, f), `content of ${f}\n`);
    }
    mkdirSync(join(root, 'src', 'sim'), { recursive: true });
    mkdirSync(join(root, 'machines', 'l1d'), { recursive: true });
    writeFileSync(join(root, 'src', 'sim', 'engine.ts'), 'export const a = 1;\n');
    writeFileSync(join(root, 'machines', 'l1d', 'l1d.ts'), 'export const b = 2;\n');
    return root;
  }
  const stampOf = (root: string) => ({ fingerprint: sourceFingerprint(root), stats: sourceStats(root) });

  it('accepts the tree a stamp was taken from, and a file touched without a change', () => {
    const root = fakeRepo();
    const stamp = stampOf(root);
    expect(buildIsCurrent(root, stamp)).toBe(true);
    // A new mtime moves the ctime: the fast check fails, the content hash still matches.
    utimesSync(join(root, 'src', 'sim', 'engine.ts'), new Date(2000, 0, 1), new Date(2000, 0, 1));
    expect(sourceStats(root)).not.toEqual(stamp.stats);
    expect(buildIsCurrent(root, stamp)).toBe(true);
  });

  it('refuses an edited, an added or a removed source, and a missing or empty stamp', () => {
    const root = fakeRepo();
    const stamp = stampOf(root);
    appendFileSync(join(root, 'machines', 'l1d', 'l1d.ts'), '// edit\n');
    expect(buildIsCurrent(root, stamp)).toBe(false);

    const root2 = fakeRepo();
    const stamp2 = stampOf(root2);
    writeFileSync(join(root2, 'src', 'sim', 'new-unit.ts'), '');
    expect(buildIsCurrent(root2, stamp2)).toBe(false);

    const root3 = fakeRepo();
    const stamp3 = stampOf(root3);
    rmSync(join(root3, 'src', 'sim', 'engine.ts'));
    expect(buildIsCurrent(root3, stamp3)).toBe(false);

    expect(buildIsCurrent(root3, null)).toBe(false);
    expect(buildIsCurrent(root3, {})).toBe(false);
  });

  it('an edit that keeps the size and puts the old times back is still seen (ctime, then content)', () => {
    const root = fakeRepo();
    const file = join(root, 'src', 'sim', 'engine.ts');
    const stamp = stampOf(root);
    writeFileSync(file, 'export const a = 2;\n'); // same length as before
    utimesSync(file, new Date(2000, 0, 1), new Date(2000, 0, 1));
    expect(buildIsCurrent(root, stamp)).toBe(false);
  });
});

describe('built CLI (scripts/build.ts)', () => {
  // Two levels below a package.json, as dist/cli is: main.ts reads the version from ../../package.json.
  const outdir = join(tmp, 'dist', 'cli');
  copyFileSync(join(REPO_ROOT, 'package.json'), join(tmp, 'package.json'));
  let built: Awaited<ReturnType<typeof buildCli>> | null = null;
  const ensureBuilt = async () => (built ??= await buildCli(REPO_ROOT, outdir));

  it('bundles main.ts with a code cache V8 accepts, and a stamp of the sources', async () => {
    const r = await ensureBuilt();
    const stamp = JSON.parse(readFileSync(join(outdir, 'stamp.json'), 'utf8'));
    expect(stamp.fingerprint).toBe(r.fingerprint);
    expect(stamp.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    // One stats line per fingerprinted file: the single files plus everything under src/ and machines/.
    expect(stamp.stats.length).toBeGreaterThan(FINGERPRINT_FILES.length + unitFolders().length);
    expect(loadBuiltCli(outdir).cacheRejected).toBe(false);
  }, 60_000);

  it('registers the same unit kinds, in the same order, as machines/index.ts discovers at run time', async () => {
    await ensureBuilt();
    const cli = loadBuiltCli(outdir);
    let builtOut = '';
    const code = await (cli.exports as unknown as { main: typeof main }).main(['units'], (s) => void (builtOut += s), () => {});
    const [srcCode, srcOut] = await runSource(['units']);
    expect([code, srcCode]).toEqual([0, 0]);
    expect(builtOut).toBe(srcOut);
    // Every unit folder (machines/<folder>/<folder>.ts) defines at least one kind.
    expect(builtOut.trim().split('\n').length).toBeGreaterThanOrEqual(unitFolders().length);
  }, 60_000);

  it('keeps no dynamic import() in the bundle but the one that borrows the launcher\'s', async () => {
    await ensureBuilt();
    // Code restored from the code cache has no dynamic import(); only figures.ts's
    // runtimeImport may call it, as a fallback behind the launcher's lent import.
    const calls = readFileSync(join(outdir, 'main.cjs'), 'utf8')
      .split('\n')
      .filter((l) => /(^|[^\w.$])import\(/.test(l) && !/^\s*(\/\/|\*)/.test(l));
    expect(calls).toHaveLength(1);
    expect(calls[0]).toContain('lent');
  }, 60_000);

  it('draws report figures (vega, loaded at run time) from code restored from the code cache', async () => {
    await ensureBuilt();
    const cli = loadBuiltCli(outdir);
    expect(cli.cacheRejected).toBe(false);
    const builtMain = (cli.exports as unknown as { main: typeof main }).main;
    const stats = join(tmp, 'vecadd-stats.json');
    const html = join(tmp, 'vecadd-report.html');
    const quiet = (): undefined => undefined;
    expect(await builtMain(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--set', 'sampleInterval=500ns', '--stats', stats, '-q'], quiet, quiet)).toBe(0);
    let err = '';
    expect(await builtMain(['report', stats, '-o', html], quiet, (t) => void (err += t))).toBe(0);
    expect(err).toBe('');
    // Regression: an import() inside cached code failed with ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING.
    expect((readFileSync(html, 'utf8').match(/<svg/g) ?? []).length).toBeGreaterThan(0);
  }, 60_000);

  it('prints the package version and the config of a preset like the sources do', async () => {
    await ensureBuilt();
    const builtMain = (loadBuiltCli(outdir).exports as unknown as { main: typeof main }).main;
    const version = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).version as string;
    let v = '';
    expect(await builtMain(['--version'], (s) => void (v += s), () => {})).toBe(0);
    expect(v.trim()).toBe(version);
    let cfg = '';
    expect(await builtMain(['config', 'show', 'gtx480', '--json'], (s) => void (cfg += s), () => {})).toBe(0);
    expect(cfg).toBe((await runSource(['config', 'show', 'gtx480', '--json']))[1]);
    // GPGPU-Sim SM2_GTX480: -gpgpu_n_clusters 15, one core per cluster.
    expect(JSON.parse(cfg).sm.count).toBe(15);
  }, 60_000);
});

describe('lazy imports of src/cli/main.ts', () => {
  /** The repository files a CLI command (run on the sources through tsx) loads. */
  function loadedFiles(argv: string[]): string[] {
    const file = join(tmp, `loads-${argv.join('-').replace(/[^\w-]/g, '_')}.txt`);
    writeFileSync(file, '');
    const register = join(REPO_ROOT, 'test', 'cli', 'fixtures', 'record-loads', 'register.mjs');
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--import', register, 'src/cli/main.ts', ...argv], {
      cwd: REPO_ROOT,
      env: { ...process.env, RECORD_LOADS_FILE: file, WARPSTATE_CLI: '' },
      encoding: 'utf8',
    });
    expect(r.status, r.stderr).toBe(0);
    return readFileSync(file, 'utf8').split('\n').filter((u) => u.startsWith('file://'));
  }

  it('config show loads the config schema but neither the engine nor xstate', () => {
    const files = loadedFiles(['config', 'show', 'gtx480']);
    expect(files.some((u) => u.endsWith('/src/config/schema.ts'))).toBe(true);
    expect(files.filter((u) => u.endsWith('/src/sim/engine.ts') || u.includes('/node_modules/xstate/'))).toEqual([]);
  }, 60_000);

  it('--help loads no scenario, config, engine or PTX module', () => {
    const files = loadedFiles(['--help']);
    expect(files.filter((u) => /\/src\/(scenario\/loader|config\/schema|sim\/engine|isa\/parser)\.ts$/.test(u) || u.includes('/node_modules/zod/'))).toEqual([]);
  }, 60_000);
});
