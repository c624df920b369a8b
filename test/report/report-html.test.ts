/**
 * The run summary and the HTML report (issue 12 items 5 and 6): `run --summary --report` on a
 * small timing run, the summary's numbers derived from the stats file of the same run, the
 * report self-contained and rendered by headless Chromium (Debian's `chromium`, driven by
 * playwright-core; `.ci/run` installs it), and `warpstate report` on a stats file and on a sweep
 * results directory.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderFigure } from '../../src/report/figures.ts';
import { runCli } from '../helpers/cli.ts';

const CHROMIUM = '/usr/bin/chromium';
const dir = mkdtempSync(join(tmpdir(), 'warpstate-report-'));
const statsPath = join(dir, 'stats.json');
const reportPath = join(dir, 'report.html');
let run: { code: number; out: string; err: string };
let stats: Record<string, number>;

beforeAll(async () => {
  run = await runCli(['run', 'scenarios/k-vecadd.yaml', '--set', 'mode=timing', '--sample-interval', '100ns', '--summary', '--stats-all', '--stats', statsPath, '--report', reportPath]);
  stats = JSON.parse(readFileSync(statsPath, 'utf8')).stats;
}, 120_000);

const sum = (re: RegExp) => Object.entries(stats).reduce((a, [k, v]) => a + (re.test(k) && typeof v === 'number' ? v : 0), 0);
const line = (label: string) => run.out.split('\n').find((l) => l.startsWith(label)) ?? '';

describe('run --summary', () => {
  it('is short and prints the headline numbers of the stats file of the same run', () => {
    expect(run.code).toBe(0);
    // --stats-all: every statistic first (as without --summary), then the summary.
    expect(run.out).toMatch(/^gpu_sim_cycle = \d+$/m);
    const lines = run.out.slice(run.out.indexOf('warpstate: scenario')).trimEnd().split('\n');
    expect(lines.length).toBeLessThan(40);
    expect(lines.filter((l) => / = /.test(l))).toEqual([]);
    expect(lines[0]).toBe('warpstate: scenario vecadd (seed 1), timing mode');
    expect(line('GPU:')).toContain('gtx480');
    expect(line('GPU:')).toContain('15 SMs at 700 MHz');
    expect(line('kernel:')).toContain('vecadd (grid 16x1x1, block 256x1x1)');
    expect(line('result check')).toContain('PASS (1 of 1 checks)');
    expect(line('cycles')).toContain(`${stats.gpu_sim_cycle!.toLocaleString('en-US')} core cycles`);
    expect(line('instructions')).toContain(`${stats.gpu_sim_insn!.toLocaleString('en-US')} thread instructions`);
    expect(line('IPC')).toContain(`${stats.gpu_ipc!.toFixed(2)} thread instructions / cycle`);
    // Resident warp-cycles (every warp is in one warp state each cycle) per active SM-cycle, over
    // the GTX480's 48 warp slots (1536 threads / 32).
    const warps = sum(/^GPU\.SM\[\d+\]\.ISSUE\.warp_state_/) / sum(/^GPU\.SM\[\d+\]\.ISSUE\.active_cycles$/);
    expect(line('occupancy')).toContain(`${((100 * warps) / 48).toFixed(1)} % achieved (${warps.toFixed(1)} of 48 warps`);
    const l1 = stats.gpu_l1d_accesses!;
    expect(line('L1D')).toContain(`${((100 * (l1 - stats.gpu_l1d_misses!)) / l1).toFixed(1)} % hits of ${l1} accesses`);
    expect(line('L2')).toContain(`${((100 * stats.gpu_l2_hits!) / stats.gpu_l2_accesses!).toFixed(1)} % hits`);
    // Peak: 6 partitions x 2 chips x 4 B x 4 transfers per command cycle x 924 MHz = 177.4 GB/s.
    const peak = (6 * 2 * 4 * 4 * 924e6) / 1e9;
    expect(line('DRAM')).toContain(`${stats.gpu_dram_bandwidth_gbps!.toFixed(2)} GB/s used of 177.4 GB/s peak (${((100 * stats.gpu_dram_bandwidth_gbps!) / peak).toFixed(1)} %)`);
    const kinds = ['memoryConflict', 'memoryDependency', 'fetch', 'other'].map((k) => ({ k, c: sum(new RegExp(`^GPU\\.SM\\[\\d+\\]\\.ISSUE\\.stall_${k}$`)) }));
    kinds.sort((a, b) => b.c - a.c);
    const stalled = kinds.reduce((a, x) => a + x.c, 0);
    expect(line('top stalls')).toContain(`${kinds[0]!.k} ${((100 * kinds[0]!.c) / stalled).toFixed(1)} %`);
    expect(line('speed')).toMatch(/warp instructions\/s/);
    expect(line('statistics')).toContain(statsPath);
    expect(line('report')).toContain(reportPath);
  });
});

describe('HTML report', () => {
  it('is self-contained: inline SVG figures, no script, no http(s) URL in src or href', () => {
    const html = readFileSync(reportPath, 'utf8');
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?https?:/i);
    expect(html).not.toMatch(/<script|<link|<img/i);
    // IPC, ALU/MEM load and warp states over time; warp states, scheduler states, stall breakdown per SM.
    expect(html.match(/<figure/g)).toHaveLength(6);
    expect(html.match(/<svg/g)).toHaveLength(6);
    expect(html).toContain('IPC over time');
    expect(html).toContain('Warp states over time (000 Figs. 5.x)');
    expect(html).toContain(`>${stats.gpu_sim_cycle}<`); // the full statistics table
  });

  it.skipIf(!existsSync(CHROMIUM))('renders every figure in headless Chromium without console errors (screenshot in out/)', async () => {
    const { chromium } = await import('playwright-core');
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    try {
      const page = await browser.newPage({ viewport: { width: 1200, height: 900 } });
      const errors: string[] = [];
      page.on('console', (m) => void (m.type() === 'error' && errors.push(m.text())));
      page.on('pageerror', (e) => void errors.push(e.message));
      const requests: string[] = [];
      page.on('request', (r) => void (r.url().startsWith('file:') || requests.push(r.url())));
      await page.goto(pathToFileURL(reportPath).href);
      const figures = await page.$$eval('figure', (fs) =>
        fs.map((f) => {
          const svg = f.querySelector('svg');
          const box = svg?.getBoundingClientRect();
          // Marks: the drawn shapes inside vega's mark containers (bars, lines, areas).
          const marks = svg ? svg.querySelectorAll('g.role-mark > path, g.role-mark > g path').length : 0;
          return { width: box?.width ?? 0, height: box?.height ?? 0, marks };
        }),
      );
      expect(figures).toHaveLength(6);
      for (const f of figures) {
        expect(f.width).toBeGreaterThan(300);
        expect(f.height).toBeGreaterThan(150);
        expect(f.marks).toBeGreaterThan(0);
      }
      expect(errors).toEqual([]);
      expect(requests).toEqual([]);
      mkdirSync('out', { recursive: true });
      await page.screenshot({ path: resolve('out/report-test-screenshot.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  }, 60_000);
});

describe('warpstate report', () => {
  it('writes the report of a stats file; --gpu adds the configuration', async () => {
    const out = join(dir, 'from-stats.html');
    const r = await runCli(['report', statsPath, '-o', out, '--gpu', 'gtx480']);
    expect(r.code).toBe(0);
    expect(r.out).toBe(`wrote the report of ${statsPath} to ${out}\n`);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<h2>Configuration</h2>');
    expect(html).toContain('177.4 GB/s peak');
    expect(html.match(/<figure/g)).toHaveLength(6);
  }, 60_000);

  it('a file that is not a stats file exits 2 naming it', async () => {
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"scenario": "x"}');
    const r = await runCli(['report', bad, '-o', join(dir, 'x.html')]);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`error: ${bad}: stats: not a warpstate statistics file (run --stats): no stats object\n`);
    const missing = await runCli(['report', join(dir, 'nope'), '-o', join(dir, 'x.html')]);
    expect(missing.code).toBe(2);
    expect(missing.err).toContain('nope');
  });

  it('writes the report of a sweep directory: provenance, checks, figures inlined, one table row per point', async () => {
    const sweep = join(dir, 'sweep');
    const rows = [
      { id: 'a', kernel: 'k1', policy: 'lrr', gpu_sim_cycle: 100 },
      { id: 'b', kernel: 'k1', policy: 'gto', gpu_sim_cycle: 80 },
    ];
    await renderFigure({ kind: 'normalisedBars', name: 'speedup', x: 'kernel', color: 'policy', y: 'gpu_sim_cycle', baseline: { policy: 'lrr' }, invert: true }, rows, join(sweep, 'figures'));
    const points = rows.map((r) => ({
      id: r.id, hash: `h${r.id}`, base: 'k1.yaml', overrides: { policy: r.policy }, seed: 1, status: 'ok', exitCode: 0, wallSeconds: 1.5,
      stats: { gpu_sim_cycle: r.gpu_sim_cycle }, derived: { speedup: 100 / r.gpu_sim_cycle }, statsFile: `points/${r.id}/stats.json`,
    }));
    const results = {
      sweep: 'policies.yaml', warpstate: { version: '0.1.0', commit: 'abc123' }, columns: ['id', 'base', 'policy', 'seed', 'status', 'gpu_sim_cycle', 'speedup'], points,
      checks: [{ expr: 'cycles[policy=gto] <= cycles[policy=lrr]', passed: true, detail: '80 <= 100' }],
      figures: [{ name: 'speedup', svg: 'figures/speedup.svg', png: 'figures/speedup.png' }],
    };
    writeFileSync(join(sweep, 'results.json'), JSON.stringify(results));
    const out = join(dir, 'sweep.html');
    const r = await runCli(['report', sweep, '-o', out]);
    expect(r.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('commit abc123');
    expect(html).toContain('<td class="pass">PASS</td><td>cycles[policy=gto] &lt;= cycles[policy=lrr]</td>');
    expect(html.match(/<svg/g)).toHaveLength(1);
    expect(html.match(/aria-roledescription="bar"/g)).toHaveLength(2);
    // Header: id, base, policy, seed, status, wall (s), gpu_sim_cycle, speedup; derived 100 / 80 = 1.25.
    expect(html).toContain('<tr><td>b</td><td>k1.yaml</td><td>gto</td><td class="num">1</td><td>ok</td><td class="num">1.5</td><td class="num">80</td><td class="num">1.25</td></tr>');
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?https?:/i);
  });
});
