import { describe, expect, it } from 'vitest';
import { expandGrid, GridError, pointId, type Axis } from '../../src/sweep/grid.ts';

const axis = (name: string, labels: string[], kind: 'config' | 'base' = 'config'): Axis => ({
  name,
  target: kind === 'base' ? { kind: 'base' } : { kind: 'config', key: `x.${name}` },
  labels,
  values: labels.map((l) => (Number.isFinite(Number(l)) ? Number(l) : l)),
});

describe('sweep grid expansion', () => {
  const base = axis('base', ['k1', 'k2'], 'base');
  const policy = axis('policy', ['lrr', 'gto', 'oldest']);
  const mshr = axis('mshr', ['8', '16']);
  const queue = axis('queue', ['4', '8']);

  it('crosses every axis, first axis slowest: 2 x 3 = 6 points', () => {
    const pts = expandGrid([base, policy]);
    expect(pts).toEqual([
      { base: 'k1', policy: 'lrr' },
      { base: 'k1', policy: 'gto' },
      { base: 'k1', policy: 'oldest' },
      { base: 'k2', policy: 'lrr' },
      { base: 'k2', policy: 'gto' },
      { base: 'k2', policy: 'oldest' },
    ]);
    expect(pointId([base, policy], pts[4]!)).toBe('k2/policy=gto');
  });

  it('a zip group advances together: 2 bases x 2 zipped pairs = 4 points, not 8', () => {
    const pts = expandGrid([base, mshr, queue], [['mshr', 'queue']]);
    expect(pts).toEqual([
      { base: 'k1', mshr: '8', queue: '4' },
      { base: 'k1', mshr: '16', queue: '8' },
      { base: 'k2', mshr: '8', queue: '4' },
      { base: 'k2', mshr: '16', queue: '8' },
    ]);
  });

  it('explicit points are appended, duplicates of grid points dropped, new scalar labels kept', () => {
    const pts = expandGrid([base, mshr], [], [{ base: 'k1', mshr: '8' }, { base: 'k2', mshr: '64' }]);
    expect(pts).toHaveLength(5);
    expect(pts[4]).toEqual({ base: 'k2', mshr: '64' });
  });

  it('refuses zip groups of unequal length, unknown axes and incomplete explicit points', () => {
    expect(() => expandGrid([base, policy, mshr], [['policy', 'mshr']])).toThrow(/same number of values, got policy: 3, mshr: 2/);
    expect(() => expandGrid([base, mshr], [['mshr', 'nope']])).toThrow(GridError);
    expect(() => expandGrid([base, mshr], [], [{ base: 'k1' }])).toThrow(/missing axis 'mshr'/);
    // A map axis (label -> object) has only its own labels; a list of scalars may take new ones.
    const sched: Axis = { name: 'sched', target: { kind: 'config', key: 'policies.warpScheduler' }, labels: ['lrr'], values: [{ kind: 'lrr' }] };
    expect(() => expandGrid([base, sched], [], [{ base: 'k1', sched: 'fifo' }])).toThrow(/unknown label 'fifo' of axis 'sched'/);
    expect(() => expandGrid([base, policy], [], [{ base: 'k3', policy: 'gto' }])).toThrow(/unknown label 'k3' of axis 'base'/);
  });
});
