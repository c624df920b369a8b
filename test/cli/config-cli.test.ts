import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';

describe('warpstate config', () => {
  it('lists the presets and shows one, also as JSON with overrides', async () => {
    const list = await runCli(['config', 'list']);
    expect(list.code).toBe(0);
    for (const p of ['gtx480', 'm2090', 'k20x', 'onac32', 'maxwell-cke', 'gtx1080ti']) expect(list.out).toContain(p);
    const json = await runCli(['config', 'show', 'gtx480', '--json', '--set', 'sm.count=4']);
    expect(json.code).toBe(0);
    const cfg = JSON.parse(json.out);
    expect(cfg.sm.count).toBe(4);
    expect(cfg.sm.registers).toBe(32768);
    expect(cfg.l1d.sets * cfg.l1d.ways * cfg.l1d.lineBytes).toBe(16384);
    const text = await runCli(['config', 'show', 'm2090']);
    expect(text.code).toBe(0);
    expect(text.out).toMatch(/16/);
  });

  it('imports a gpgpusim.config and lists the options it ignores by name', async () => {
    const r = await runCli(['config', 'show', 'data/gpgpusim-configs/tested-cfgs/SM2_GTX480/gpgpusim.config']);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/# \d+ options mapped; \d+ not modelled:/);
    expect(r.out).toMatch(/#\s+-\S+ \(line \d+\)/);
  });

  it('refuses an unknown preset and a bad override with exit 2', async () => {
    const a = await runCli(['config', 'show', 'gtx9999']);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/gtx9999/);
    const b = await runCli(['config', 'show', 'gtx480', '--set', 'sm.count=-1']);
    expect(b.code).toBe(2);
    expect(b.err).toMatch(/--set.*sm\.count/);
  });
});
