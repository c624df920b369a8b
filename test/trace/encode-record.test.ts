/**
 * The trace encoder (records.ts) writes records field by field for speed; its output must stay
 * byte-identical to the format's definition: `JSON.stringify` with bigints as decimal strings,
 * typed arrays as arrays and maps as objects, keys in the declared order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeRecord, encodeValue, type TraceRecord } from '../../src/trace/records.ts';

/** The format's definition, written independently of records.ts. */
function reference(value: unknown): string | undefined {
  return JSON.stringify(value, (_k, v: unknown) => {
    if (typeof v === 'bigint') return v.toString();
    if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
    if (v instanceof Map) return Object.fromEntries(v);
    return v;
  });
}

const leaf = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 2 ** 53, 1e21, 1.5e-7),
  fc.string(),
  fc.constantFrom('quote"', 'back\\slash', 'nl\n', 'ünïcödé', '\u2028'),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.bigInt(),
  fc.array(fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })).map((a) => Int32Array.from(a)),
  fc.array(fc.double()).map((a) => Float64Array.from(a)),
  fc.array(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })).map((a) => BigInt64Array.from(a)),
  fc.constant(() => 1),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('value')), fc.dictionary(fc.string(), tie('value')),
    fc.array(fc.tuple(fc.string(), tie('value'))).map((e) => new Map(e))),
}));

describe('trace record encoding', () => {
  it('encodeValue equals the JSON definition for any payload-like value (property)', () => {
    fc.assert(
      fc.property(value, (v) => {
        expect(encodeValue(v)).toBe(reference(v));
      }),
      { numRuns: 2000 },
    );
  });

  it('every record kind is encoded with its keys in declared order, undefined keys left out', () => {
    const recs: TraceRecord[] = [
      { t: 'msg', id: 7, kind: 'mem.readReq', src: 'GPU.SM[0].L1D', srcPort: 'bottomOut', dst: 'GPU.ICNT', dstPort: 'in[0]', send: 1428, deliver: 2856, replyTo: -1, bytes: 8, payload: { addr: 4026531840, dst: Int32Array.of(98), big: 5n } },
      { t: 'msg', id: 8, kind: 'x', src: 'a', srcPort: 'o', dst: 'b', dstPort: 'i', send: 0, deliver: 1, replyTo: 7, bytes: 0, payload: undefined },
      { t: 'span', unit: 'GPU.SM[0].ISSUE', name: 'cta.start', start: 1, end: 2, msgId: -1 },
      { t: 'span', unit: 'u', name: 'stall', start: 1, end: 2, msgId: 3, reason: 'resFail "mshr"', tags: { kernel: 'k', cta: 0, ok: true } },
      { t: 'state', time: 5, unit: 'GPU.SMWM', value: '{"kernels":"active"}' },
      { t: 'counter', time: 9, name: 'GPU.SM[1].LSU.topOut', value: 3 },
      { t: 'meta', format: 'warpstate-trace', version: 1, scenario: 's', seed: 1, clocks: [{ name: 'core', hz: 7e8 }], units: [{ name: 'u', kind: 'k', clock: 'core' }] },
    ];
    for (const r of recs) expect(encodeRecord(r)).toBe(reference(r));
    expect(encodeRecord(recs[0]!)).toBe('{"t":"msg","id":7,"kind":"mem.readReq","src":"GPU.SM[0].L1D","srcPort":"bottomOut","dst":"GPU.ICNT","dstPort":"in[0]","send":1428,"deliver":2856,"replyTo":-1,"bytes":8,"payload":{"addr":4026531840,"dst":[98],"big":"5"}}');
  });
});
