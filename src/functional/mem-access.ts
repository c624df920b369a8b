/**
 * Address resolution and element transfers of memory instructions: bounds and alignment checks
 * per state space, the generic-address windows (`memory.ts`), and the lane loop shared by
 * `ld`, `st`, `atom` and `red`.
 */

import { StateSpace } from '../isa/ir.ts';
import {
  CONST_WINDOW_BASE,
  LOCAL_WINDOW_BASE,
  MemoryAccessFault,
  PARAM_WINDOW_BASE,
  SHARED_WINDOW_BASE,
  WINDOW_SIZE,
  type ByteStore,
} from './memory.ts';
import type { Exec, ExecWarp, Slot } from './exec-types.ts';
import { widthMask } from './lanes.ts';

// ---------------------------------------------------------------------------------------------
// Memory resolution
// ---------------------------------------------------------------------------------------------

/**
 * Resolves a `size`-byte access at `a` in `space` for lane `l`: checks bounds and alignment,
 * sets `w.memStore` and `w.laneSpace`, returns the byte offset inside `w.memStore`.
 * @throws MemoryAccessFault
 */
export function resolve(w: ExecWarp, space: number, a: number, size: number, l: number): number {
  switch (space) {
    case StateSpace.Global: {
      w.memStore = w.gmem.page(a, size);
      w.laneSpace = StateSpace.Global;
      return a & 0xffff;
    }
    case StateSpace.Shared:
      check(a, size, w.sharedBytes, 'shared');
      w.memStore = w.shared;
      w.laneSpace = StateSpace.Shared;
      return a;
    case StateSpace.Local:
      check(a, size, w.localBytes, 'local');
      w.memStore = w.local;
      w.laneSpace = StateSpace.Local;
      return l * w.localStride + a;
    case StateSpace.Const:
      check(a, size, w.constBytes, 'const');
      w.memStore = w.cnst;
      w.laneSpace = StateSpace.Const;
      return a;
    case StateSpace.Param:
      check(a, size, w.paramBytes, 'param');
      w.memStore = w.param;
      w.laneSpace = StateSpace.Param;
      return a;
    default: {
      // generic: windows first, everything else is global
      if (a >= SHARED_WINDOW_BASE && a < SHARED_WINDOW_BASE + WINDOW_SIZE) return resolve(w, StateSpace.Shared, a - SHARED_WINDOW_BASE, size, l);
      if (a >= LOCAL_WINDOW_BASE && a < LOCAL_WINDOW_BASE + WINDOW_SIZE) return resolve(w, StateSpace.Local, a - LOCAL_WINDOW_BASE, size, l);
      if (a >= PARAM_WINDOW_BASE && a < PARAM_WINDOW_BASE + WINDOW_SIZE) return resolve(w, StateSpace.Param, a - PARAM_WINDOW_BASE, size, l);
      if (a >= CONST_WINDOW_BASE && a < CONST_WINDOW_BASE + WINDOW_SIZE) return resolve(w, StateSpace.Const, a - CONST_WINDOW_BASE, size, l);
      return resolve(w, StateSpace.Global, a, size, l);
    }
  }
}

export function check(a: number, size: number, limit: number, space: string): void {
  if ((a & (size - 1)) !== 0) throw new MemoryAccessFault(space, a, size, 'misaligned');
  if (!(a >= 0 && a + size <= limit)) throw new MemoryAccessFault(space, a, size, 'out-of-bounds'); // NaN faults too
}

/** Generic-window base of a state space (0 for global). */
export function windowBase(space: StateSpace): number {
  switch (space) {
    case StateSpace.Shared:
      return SHARED_WINDOW_BASE;
    case StateSpace.Local:
      return LOCAL_WINDOW_BASE;
    case StateSpace.Param:
      return PARAM_WINDOW_BASE;
    case StateSpace.Const:
      return CONST_WINDOW_BASE;
    default:
      return 0;
  }
}

/** Records the space of lane accesses for the step info (Generic when lanes differ). */
export function noteSpace(w: ExecWarp): void {
  if (w.resolvedSpace === -1) w.resolvedSpace = w.laneSpace;
  else if (w.resolvedSpace !== w.laneSpace) w.resolvedSpace = StateSpace.Generic;
}

/** Per-lane body of a memory instruction: the access at byte `off` of store `st`. */
export type LaneAccess = (w: ExecWarp, st: ByteStore, off: number, l: number) => void;

/**
 * Lane loop of a memory instruction: computes each active lane's address, records it, resolves
 * it (bounds, alignment, generic windows) and runs `body` on the resolved location, in
 * increasing lane order.
 */
export function memLoop(addrOf: (w: ExecWarp, l: number) => number, space: number, size: number, body: LaneAccess): Exec {
  return (w, mask) => {
    const addrs = w.addresses;
    w.resolvedSpace = -1;
    for (let l = 0; l < 32; l++) {
      if (((mask >>> l) & 1) === 0) continue;
      const a = addrOf(w, l);
      addrs[l] = a;
      const o = resolve(w, space, a, size, l);
      noteSpace(w);
      body(w, w.memStore, o, l);
    }
  };
}

/** Loads one element of `esz` bytes into lane `l` of `d`, sign-extending when `signed`. */
export function loadElem(w: ExecWarp, st: ByteStore, off: number, esz: number, signed: boolean, d: Slot, l: number): void {
  if (esz === 8) {
    const i = d.slot + 2 * l;
    const o = off >> 2;
    w.u32[i] = st.u32[o]!;
    w.u32[i + 1] = st.u32[o + 1]!;
    return;
  }
  let v: number;
  if (esz === 4) v = signed ? st.i32[off >> 2]! : st.u32[off >> 2]!;
  else if (esz === 2) v = signed ? st.i16[off >> 1]! : st.u16[off >> 1]!;
  else v = signed ? st.i8[off]! : st.u8[off]!;
  if (d.bits === 64) {
    const i = d.slot + 2 * l;
    w.u32[i] = v;
    w.u32[i + 1] = v < 0 ? 0xffffffff : 0;
  } else w.u32[d.slot + l] = d.bits === 32 ? v : v & widthMask(d.bits);
}

/** Stores the low `esz` bytes of lane `l` of `s` at `off`. */
export function storeElem(w: ExecWarp, st: ByteStore, off: number, esz: number, s: Slot, l: number): void {
  const i = s.bits === 64 ? s.slot + 2 * l : s.slot + l;
  if (esz === 8) {
    const o = off >> 2;
    st.u32[o] = w.u32[i]!;
    st.u32[o + 1] = s.bits === 64 ? w.u32[i + 1]! : 0;
  } else if (esz === 4) st.u32[off >> 2] = w.u32[i]!;
  else if (esz === 2) st.u16[off >> 1] = w.u32[i]!;
  else st.u8[off] = w.u32[i]!;
}
