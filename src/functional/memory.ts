/**
 * Memories of the functional model: device global memory (sparse, paged, with allocations),
 * and flat byte stores used for shared (per CTA), local (per thread), const and param memory.
 *
 * All memories are byte-addressed and little-endian, like NVIDIA GPUs. Accesses must be
 * naturally aligned (an n-byte access at an address that is a multiple of n), as PTX requires
 * (PTX ISA §6.4.3, "Addresses as Operands": misaligned accesses are undefined; real GPUs raise a
 * "misaligned address" error); a misaligned or out-of-bounds access raises a
 * {@link MemoryAccessFault}, which the executor turns into a {@link FunctionalFault} naming the
 * kernel, PC, lane and address.
 *
 * Generic addressing (PTX ISA §6.4.1, `cvta`): a generic address is resolved by windows, as on
 * real GPUs where shared and local memory appear as windows inside the generic space:
 *
 * | window | generic addresses | space address |
 * |---|---|---|
 * | shared | `SHARED_WINDOW_BASE .. + 2^32` (2^40 ..) | generic - 2^40 |
 * | local | `LOCAL_WINDOW_BASE .. + 2^32` (2^41 ..) | generic - 2^41 |
 * | param (kernel params) | `PARAM_WINDOW_BASE .. + 2^32` (3 * 2^40 ..) | generic - 3*2^40 |
 * | const | `CONST_WINDOW_BASE .. + 2^32` (2^42 ..) | generic - 2^42 |
 * | global | everything else; allocations are placed from `GLOBAL_HEAP_BASE` (2^32) up to 2^40 | identity |
 *
 * Addresses are JS numbers (exact below 2^53). Address 0 and the first 4 GiB are never
 * allocated, so null-pointer dereferences fault.
 */

import { SimulationError } from '../errors.ts';

/** First generic address of the shared-memory window (2^40). */
export const SHARED_WINDOW_BASE = 1099511627776;
/** First generic address of the local-memory window (2^41). */
export const LOCAL_WINDOW_BASE = 2199023255552;
/** First generic address of the kernel-parameter window (3 * 2^40). */
export const PARAM_WINDOW_BASE = 3298534883328;
/** First generic address of the const window (2^42). */
export const CONST_WINDOW_BASE = 4398046511104;
/** Size of each window (4 GiB). */
export const WINDOW_SIZE = 4294967296;
/** Lowest address of global allocations (4 GiB). */
export const GLOBAL_HEAP_BASE = 4294967296;
/** End (exclusive) of the global heap. */
export const GLOBAL_HEAP_END = SHARED_WINDOW_BASE;
/** Bytes per page of global memory (64 KiB). */
export const PAGE_BYTES = 65536;

/**
 * A bad memory access found by a memory object (before the executor adds the kernel, PC and lane):
 * `reason` is `'out-of-bounds'` or `'misaligned'`.
 */
export class MemoryAccessFault extends Error {
  readonly space: string;
  readonly address: number;
  readonly size: number;
  readonly reason: 'out-of-bounds' | 'misaligned';
  constructor(space: string, address: number, size: number, reason: 'out-of-bounds' | 'misaligned') {
    super(`${reason} ${size}-byte ${space} access at 0x${address.toString(16)}`);
    this.name = 'MemoryAccessFault';
    this.space = space;
    this.address = address;
    this.size = size;
    this.reason = reason;
  }
}

/**
 * A fault of the simulated program (bad memory access, barrier deadlock, instruction limit),
 * with a structured {@link FunctionalFaultDetails} report.
 */
export class FunctionalFault extends SimulationError {
  declare readonly details: FunctionalFaultDetails;
  constructor(message: string, details: FunctionalFaultDetails) {
    super(message, details);
    this.name = 'FunctionalFault';
  }
}

/** Where and why a {@link FunctionalFault} happened. Fields that do not apply are undefined. */
export interface FunctionalFaultDetails {
  /**
   * `memory` (bad access), `deadlock` (barrier), `limit` (instruction cap), `unsupported`,
   * `trap` (the kernel executed `trap`), `assert` (a failed device `assert`, `__assertfail`),
   * `call` (a call through a pointer that names no function the call may reach; CUDA's
   * "invalid program counter").
   */
  readonly kind: 'memory' | 'deadlock' | 'limit' | 'unsupported' | 'trap' | 'assert' | 'call';
  readonly kernel: string;
  /** Function (kernel or `.func`) containing the faulting instruction. */
  readonly function?: string;
  /** Instruction index in that function. */
  readonly pc?: number;
  /** 1-based PTX source line of the instruction. */
  readonly line?: number;
  /** Instruction text (`ld.global.f32`). */
  readonly opText?: string;
  /** CTA id (x, y, z). */
  readonly cta?: readonly [number, number, number];
  /** Warp index in the CTA. */
  readonly warp?: number;
  /** Lane (0..31). */
  readonly lane?: number;
  /** Thread index in the CTA (`%tid`: x, y, z) of the faulting lane. */
  readonly thread?: readonly [number, number, number];
  /** `assert`: the asserted expression as nvcc wrote it (`t != bad`). */
  readonly assertion?: string;
  /** `assert`: CUDA source file and line of the `assert`, and the function name nvcc passed. */
  readonly sourceFile?: string;
  readonly sourceLine?: number;
  readonly sourceFunction?: string;
  /** Faulting address, in the space named by `space`. */
  readonly address?: number;
  /** State space of the access (`global`, `shared`, ... or `generic`). */
  readonly space?: string;
  /** Access size in bytes. */
  readonly size?: number;
  /** `out-of-bounds`, `misaligned`, or the deadlock/limit explanation. */
  readonly reason: string;
  /** Thread instructions executed before the fault. */
  readonly threadInstructions?: number;
  /** Warp instructions executed before the fault. */
  readonly warpInstructions?: number;
}

/**
 * A little-endian byte store with aligned typed views (length a multiple of 8 bytes). Indexes:
 * `u8[off]`, `u16[off >> 1]`, `u32[off >> 2]`, `f64[off >> 3]` ... (accesses are aligned).
 */
export class ByteStore {
  readonly bytes: number;
  readonly u8: Uint8Array;
  readonly i8: Int8Array;
  readonly u16: Uint16Array;
  readonly i16: Int16Array;
  readonly u32: Uint32Array;
  readonly i32: Int32Array;
  readonly f32: Float32Array;
  readonly f64: Float64Array;
  readonly u64: BigUint64Array;
  constructor(bytes: number, buffer?: ArrayBuffer) {
    const size = Math.ceil(bytes / 8) * 8;
    const buf = buffer ?? new ArrayBuffer(size);
    this.bytes = bytes;
    this.u8 = new Uint8Array(buf);
    this.i8 = new Int8Array(buf);
    this.u16 = new Uint16Array(buf);
    this.i16 = new Int16Array(buf);
    this.u32 = new Uint32Array(buf);
    this.i32 = new Int32Array(buf);
    this.f32 = new Float32Array(buf);
    this.f64 = new Float64Array(buf);
    this.u64 = new BigUint64Array(buf);
  }
}

/** One global allocation. */
export interface Allocation {
  /** First byte address. */
  readonly start: number;
  /** Size in bytes. */
  readonly bytes: number;
  /** Optional label (buffer name, `.global` variable name). */
  readonly label: string;
}

/**
 * Device global memory: a sparse, paged (64 KiB pages, created on first touch), byte-addressed,
 * little-endian address space. Only bytes inside an allocation may be accessed; every access is
 * checked against the allocation table (a one-entry cache makes streaming accesses cheap).
 *
 * Allocations are placed upward from {@link GLOBAL_HEAP_BASE} at the requested alignment and are
 * never reused, so a stale pointer faults instead of aliasing.
 */
export class GlobalMemory {
  private readonly allocs: Allocation[] = [];
  private next = GLOBAL_HEAP_BASE;
  private readonly pages = new Map<number, ByteStore>();
  private cacheStart = 0;
  private cacheEnd = 0;
  private lastPageNo = -1;
  private lastPage: ByteStore | undefined = undefined;

  /**
   * Reserves `bytes` bytes (zero-filled) aligned to `align` bytes (a power of two, default 256,
   * the CUDA allocation alignment) and returns the device address.
   * @throws RangeError on a non-positive size, a bad alignment or an exhausted heap.
   */
  allocate(bytes: number, align = 256, label = ''): number {
    if (!Number.isInteger(bytes) || bytes <= 0) throw new RangeError(`allocation size must be a positive integer, got ${bytes}`);
    if (!Number.isInteger(align) || align <= 0 || (align & (align - 1)) !== 0) {
      throw new RangeError(`allocation alignment must be a power of two, got ${align}`);
    }
    const start = Math.ceil(this.next / align) * align;
    if (start + bytes > GLOBAL_HEAP_END) throw new RangeError(`global memory exhausted allocating ${bytes} bytes`);
    this.allocs.push({ start, bytes, label });
    // keep a gap of at least one 256-byte granule so that adjacent buffers do not touch
    this.next = start + bytes + 256;
    return start;
  }

  /** Every allocation, in address order. */
  get allocations(): readonly Allocation[] {
    return this.allocs;
  }

  /** The allocation containing `[addr, addr+size)`, or undefined. */
  findAllocation(addr: number, size = 1): Allocation | undefined {
    const a = this.allocs;
    let lo = 0;
    let hi = a.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const m = a[mid]!;
      if (addr < m.start) hi = mid - 1;
      else if (addr >= m.start + m.bytes) lo = mid + 1;
      else return addr + size <= m.start + m.bytes ? m : undefined;
    }
    return undefined;
  }

  /**
   * Checks an aligned `size`-byte access at `addr` and returns the page store holding it; the
   * caller indexes the page at `addr % PAGE_BYTES`. Aligned accesses never straddle a page.
   * @throws MemoryAccessFault when misaligned or outside every allocation.
   */
  page(addr: number, size: number): ByteStore {
    // the low 32 bits (ToInt32 is exact on integral doubles) decide the alignment
    if ((addr & (size - 1)) !== 0) throw new MemoryAccessFault('global', addr, size, 'misaligned');
    // written so that a NaN address also misses the cache (and then faults)
    if (!(addr >= this.cacheStart && addr + size <= this.cacheEnd)) this.refill(addr, size);
    const pn = Math.floor(addr / PAGE_BYTES);
    if (pn === this.lastPageNo) return this.lastPage!;
    let p = this.pages.get(pn);
    if (p === undefined) {
      p = new ByteStore(PAGE_BYTES);
      this.pages.set(pn, p);
    }
    this.lastPageNo = pn;
    this.lastPage = p;
    return p;
  }

  private refill(addr: number, size: number): void {
    const a = this.findAllocation(addr, size);
    if (a === undefined) throw new MemoryAccessFault('global', addr, size, 'out-of-bounds');
    this.cacheStart = a.start;
    this.cacheEnd = a.start + a.bytes;
  }

  /** Reads an unsigned 8/16/32-bit value. @throws MemoryAccessFault */
  readU(addr: number, size: 1 | 2 | 4): number {
    const p = this.page(addr, size);
    const off = addr % PAGE_BYTES;
    return size === 4 ? p.u32[off >> 2]! : size === 2 ? p.u16[off >> 1]! : p.u8[off]!;
  }

  /** Writes the low 8/16/32 bits of `v`. @throws MemoryAccessFault */
  writeU(addr: number, size: 1 | 2 | 4, v: number): void {
    const p = this.page(addr, size);
    const off = addr % PAGE_BYTES;
    if (size === 4) p.u32[off >> 2] = v;
    else if (size === 2) p.u16[off >> 1] = v;
    else p.u8[off] = v;
  }

  /** Copies host bytes into device memory (must lie inside one allocation). @throws MemoryAccessFault */
  write(addr: number, data: Uint8Array): void {
    if (data.length === 0) return;
    if (this.findAllocation(addr, data.length) === undefined) {
      throw new MemoryAccessFault('global', addr, data.length, 'out-of-bounds');
    }
    let i = 0;
    while (i < data.length) {
      const a = addr + i;
      const off = a % PAGE_BYTES;
      const n = Math.min(PAGE_BYTES - off, data.length - i);
      const p = this.pageNoCheck(a);
      p.u8.set(data.subarray(i, i + n), off);
      i += n;
    }
  }

  /** Copies device bytes to a new host array (must lie inside one allocation). @throws MemoryAccessFault */
  read(addr: number, bytes: number): Uint8Array {
    const out = new Uint8Array(bytes);
    if (bytes === 0) return out;
    if (this.findAllocation(addr, bytes) === undefined) {
      throw new MemoryAccessFault('global', addr, bytes, 'out-of-bounds');
    }
    let i = 0;
    while (i < bytes) {
      const a = addr + i;
      const off = a % PAGE_BYTES;
      const n = Math.min(PAGE_BYTES - off, bytes - i);
      const p = this.pages.get(Math.floor(a / PAGE_BYTES));
      if (p !== undefined) out.set(p.u8.subarray(off, off + n), i);
      i += n;
    }
    return out;
  }

  private pageNoCheck(addr: number): ByteStore {
    const pn = Math.floor(addr / PAGE_BYTES);
    let p = this.pages.get(pn);
    if (p === undefined) {
      p = new ByteStore(PAGE_BYTES);
      this.pages.set(pn, p);
    }
    return p;
  }

  /** Allocates and fills a buffer from a typed array; returns its address. */
  upload(data: ArrayBufferView, align = 256, label = ''): number {
    const bytes = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
    const addr = this.allocate(Math.max(1, bytes.length), align, label);
    this.write(addr, bytes);
    return addr;
  }

  /** Reads `count` f32 values starting at `addr`. */
  readF32(addr: number, count: number): Float32Array {
    return new Float32Array(this.read(addr, count * 4).buffer);
  }

  /** Reads `count` f64 values starting at `addr`. */
  readF64(addr: number, count: number): Float64Array {
    return new Float64Array(this.read(addr, count * 8).buffer);
  }

  /** Reads `count` i32 values starting at `addr`. */
  readI32(addr: number, count: number): Int32Array {
    return new Int32Array(this.read(addr, count * 4).buffer);
  }

  /** Reads `count` u32 values starting at `addr`. */
  readU32(addr: number, count: number): Uint32Array {
    return new Uint32Array(this.read(addr, count * 4).buffer);
  }
}
