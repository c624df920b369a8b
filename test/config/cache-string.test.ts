import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatGpgpusimCacheString, parseGpgpusimCacheString, type ParsedCacheString } from '../../src/config/cache-string.ts';
import { InputError } from '../../src/errors.ts';

describe('parseGpgpusimCacheString', () => {
  it('reads the GTX480 L1D string N:32:128:4,L:L:m:N:H,S:64:8,8', () => {
    expect(parseGpgpusimCacheString('N:32:128:4,L:L:m:N:H,S:64:8,8')).toEqual({
      sets: 32,
      lineBytes: 128,
      ways: 4,
      replacement: 'lru',
      writePolicy: 'localWbGlobalWt',
      allocation: 'onMiss',
      writeAllocate: 'noWriteAllocate',
      setIndex: 'fermiHash',
      mshrType: 'sectorAssoc',
      mshrEntries: 64,
      mshrMaxMerge: 8,
      missQueueEntries: 8,
      resultFifoEntries: 0,
      dataPortBytes: 128, // omitted port width = one line per cycle
    });
  });

  it('reads the GTX480 L2 string S:64:128:8,L:B:m:L:L,A:256:4,4:0,32 as a sectored 64 KiB slice', () => {
    const g = parseGpgpusimCacheString('S:64:128:8,L:B:m:L:L,A:256:4,4:0,32');
    expect(g).toEqual({
      sets: 64,
      lineBytes: 128,
      ways: 8,
      sectorBytes: 32,
      replacement: 'lru',
      writePolicy: 'writeBack',
      allocation: 'onMiss',
      writeAllocate: 'lazyFetchOnRead',
      setIndex: 'linear',
      mshrType: 'assoc',
      mshrEntries: 256,
      mshrMaxMerge: 4,
      missQueueEntries: 4,
      resultFifoEntries: 0,
      dataPortBytes: 32,
    });
    if (g === 'none') throw new Error('unreachable');
    expect(g.sets * g.ways * g.lineBytes).toBe(64 * 1024);
  });

  it('reads the instruction cache string N:8:128:4,L:R:f:N:L,S:2:48,4', () => {
    expect(parseGpgpusimCacheString('N:8:128:4,L:R:f:N:L,S:2:48,4')).toMatchObject({
      sets: 8,
      ways: 4,
      lineBytes: 128,
      writePolicy: 'readOnly',
      allocation: 'onFill',
      mshrType: 'sectorAssoc',
      mshrEntries: 2,
      mshrMaxMerge: 48,
      missQueueEntries: 4,
    });
  });

  it('reads texture FIFO strings with a result FIFO', () => {
    expect(parseGpgpusimCacheString('N:4:128:24,L:R:m:N:L,T:128:4,128:2')).toMatchObject({
      mshrType: 'sectorTexFifo',
      mshrEntries: 128,
      mshrMaxMerge: 4,
      missQueueEntries: 128,
      resultFifoEntries: 2,
    });
    expect(parseGpgpusimCacheString('4:128:24,L:R:m:N:L,F:128:4,128:2')).toMatchObject({ mshrType: 'texFifo', resultFifoEntries: 2 });
  });

  it('reads GPGPU-Sim 3.x strings without the type letter and without the set-index letter', () => {
    const g = parseGpgpusimCacheString('32:128:4,L:L:m:N:H,A:32:8,8');
    expect(g).toMatchObject({ sets: 32, lineBytes: 128, ways: 4, setIndex: 'fermiHash', mshrType: 'assoc', mshrEntries: 32 });
    expect(g).not.toHaveProperty('sectorBytes');
    // GPGPU-Sim's built-in default for il1 has only four policy letters.
    expect(parseGpgpusimCacheString('4:256:4,L:R:f:N,A:2:32,4')).toMatchObject({ sets: 4, lineBytes: 256, setIndex: 'linear' });
  });

  it('reads the streaming Volta L1D, every write policy letter and the xor / IPOLY hashes', () => {
    expect(parseGpgpusimCacheString('S:1:128:256,L:L:s:N:L,A:256:8,16:0,32')).toMatchObject({ allocation: 'streaming', ways: 256, sets: 1 });
    const wr = (c: string): unknown => (parseGpgpusimCacheString(`N:4:128:4,L:${c}:m:N:L,A:4:4,4`) as ParsedCacheString).writePolicy;
    expect(['R', 'B', 'T', 'E', 'L'].map(wr)).toEqual(['readOnly', 'writeBack', 'writeThrough', 'writeEvict', 'localWbGlobalWt']);
    expect(parseGpgpusimCacheString('S:32:128:24,L:B:m:L:P,A:192:4,32:0,32')).toMatchObject({ setIndex: 'ipoly', ways: 24 });
    expect(parseGpgpusimCacheString('N:32:128:6,L:E:m:N:X,A:128:8,8')).toMatchObject({ setIndex: 'xor', writePolicy: 'writeEvict' });
    expect(parseGpgpusimCacheString('N:4:128:4,F:B:m:W:C,A:4:4,4')).toMatchObject({ replacement: 'fifo', writeAllocate: 'writeAllocate', setIndex: 'custom' });
  });

  it("returns 'none' for a disabled cache", () => {
    expect(parseGpgpusimCacheString(' none ')).toBe('none');
  });

  it('rejects malformed strings with an InputError naming the location and option', () => {
    const where = { file: 'gpgpusim.config', line: 7 };
    const bad = [
      'N:32:128,L:L:m:N:H,S:64:8,8', // sets:line only
      'Q:32:128:4,L:L:m:N:H,S:64:8,8', // unknown type
      'N:32:128:4,Z:L:m:N:H,S:64:8,8', // unknown replacement
      'N:32:128:4,L:L:x:N:H,S:64:8,8', // unknown allocation
      'N:32:128:4,L:L:m:N:Q,S:64:8,8', // unknown set index
      'N:32:128:4,L:L:m:N:H,Y:64:8,8', // unknown MSHR type
      'N:32:128:4,L:L:m:N:H,S:64:8', // missing miss queue
      'N:32:abc:4,L:L:m:N:H,S:64:8,8', // non-numeric
      'N:0:128:4,L:L:m:N:H,S:64:8,8', // zero sets
      'N:4:128:24,L:R:m:N:L,T:128:4,128', // texture FIFO without result FIFO
    ];
    for (const s of bad) {
      let err: unknown;
      try {
        parseGpgpusimCacheString(s, where, '-gpgpu_cache:dl1');
      } catch (e) {
        err = e;
      }
      expect(err, s).toBeInstanceOf(InputError);
      const ie = err as InputError;
      expect(ie.file).toBe('gpgpusim.config');
      expect(ie.line).toBe(7);
      expect(ie.field).toBe('-gpgpu_cache:dl1');
      expect(ie.message).toMatch(/^gpgpusim\.config:7: -gpgpu_cache:dl1: /);
    }
  });

  it('formats back to a string that parses to the same geometry (property)', () => {
    const geometry = fc.record({
      sets: fc.constantFrom(1, 2, 4, 32, 64, 1024),
      ways: fc.integer({ min: 1, max: 512 }),
      lineBytes: fc.constantFrom(32, 64, 128, 256),
      sectored: fc.boolean(),
      replacement: fc.constantFrom('lru', 'fifo'),
      writePolicy: fc.constantFrom('readOnly', 'writeBack', 'writeThrough', 'writeEvict', 'localWbGlobalWt'),
      allocation: fc.constantFrom('onMiss', 'onFill', 'streaming'),
      writeAllocate: fc.constantFrom('noWriteAllocate', 'writeAllocate', 'fetchOnWrite', 'lazyFetchOnRead'),
      setIndex: fc.constantFrom('linear', 'xor', 'fermiHash', 'ipoly', 'custom'),
      mshrType: fc.constantFrom('assoc', 'sectorAssoc', 'texFifo', 'sectorTexFifo'),
      mshrEntries: fc.integer({ min: 1, max: 4096 }),
      mshrMaxMerge: fc.integer({ min: 1, max: 4096 }),
      missQueueEntries: fc.integer({ min: 1, max: 512 }),
      resultFifoEntries: fc.integer({ min: 0, max: 16 }),
      portDiv: fc.constantFrom(1, 2, 4),
    });
    fc.assert(
      fc.property(geometry, (r) => {
        const g: ParsedCacheString = {
          sets: r.sets,
          ways: r.ways,
          lineBytes: r.lineBytes,
          replacement: r.replacement as ParsedCacheString['replacement'],
          writePolicy: r.writePolicy as ParsedCacheString['writePolicy'],
          allocation: r.allocation as ParsedCacheString['allocation'],
          writeAllocate: r.writeAllocate as ParsedCacheString['writeAllocate'],
          setIndex: r.setIndex as ParsedCacheString['setIndex'],
          mshrType: r.mshrType as ParsedCacheString['mshrType'],
          mshrEntries: r.mshrEntries,
          mshrMaxMerge: r.mshrMaxMerge,
          missQueueEntries: r.missQueueEntries,
          resultFifoEntries: r.mshrType === 'texFifo' || r.mshrType === 'sectorTexFifo' ? Math.max(1, r.resultFifoEntries) : r.resultFifoEntries,
          dataPortBytes: r.lineBytes / r.portDiv,
        };
        if (r.sectored) g.sectorBytes = 32;
        const text = formatGpgpusimCacheString(g);
        expect(parseGpgpusimCacheString(text)).toEqual(g);
      }),
      { numRuns: 300 },
    );
  });
});
