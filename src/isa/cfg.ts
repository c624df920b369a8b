/**
 * Control-flow graph and immediate post-dominators (GitHub issue 3, item 3).
 *
 * Basic blocks are maximal straight-line runs: a block starts at instruction 0, at every branch
 * target, and after every `bra`, `ret` and `exit`. Edges: an unguarded `bra` goes to its target;
 * a guarded one (`@p bra`) to its target and to the fall-through; an unguarded `ret`/`exit` to
 * the virtual exit node, a guarded one to the exit and the fall-through; any other last
 * instruction falls through (to the exit after the last instruction). `call` does not end a
 * block (the callee returns).
 *
 * The immediate post-dominator of a branch's block is the reconvergence point of the SIMT stack
 * (the "immediate post-dominator" reconvergence of GPGPU-Sim, Fung et al. MICRO 2007, and paper
 * 002 §2 "SIMT stack"). It is computed with the iterative algorithm of Cooper, Harvey and
 * Kennedy ("A Simple, Fast Dominance Algorithm", 2001) on the reverse CFG rooted at the virtual
 * exit. Blocks that cannot reach the exit (infinite loops) get the exit as their post-dominator.
 */
import { Opcode } from './ir.ts';
import type { Instruction, PtxFunction } from './ir.ts';

/** One basic block: instructions `[start, end)`. */
export interface BasicBlock {
  /** Position in {@link Cfg.blocks}. */
  readonly index: number;
  /** First instruction index. */
  readonly start: number;
  /** One past the last instruction index. */
  readonly end: number;
  /** Successor block indices (the virtual exit is {@link Cfg.exit}); taken target first for a guarded `bra`. */
  readonly succs: readonly number[];
  /** Predecessor block indices (never the exit). */
  readonly preds: readonly number[];
}

/** Control-flow graph of one function. */
export interface Cfg {
  /** Blocks in program order; block 0 is the entry (when the function has instructions). */
  readonly blocks: readonly BasicBlock[];
  /** Id of the virtual exit node (`blocks.length`). */
  readonly exit: number;
  /** Blocks with an edge to the exit. */
  readonly exitPreds: readonly number[];
  /** Block index of every instruction. */
  readonly blockOf: Int32Array;
  /** Number of instructions (the exit's PC). */
  readonly numInstructions: number;
}

function isTerminator(ins: Instruction): boolean {
  return ins.op === Opcode.Bra || ins.op === Opcode.Ret || ins.op === Opcode.Exit;
}

/** Target instruction index of a `bra` (its Label operand). */
export function branchTarget(ins: Instruction): number {
  return ins.src[0]!.target;
}

/**
 * Instruction-level successors of instruction `i` (`n` = the exit PC): the same edge rules as the
 * block graph, at instruction granularity.
 *
 * @returns successor PCs (a PC equal to `instructions.length` is the exit).
 */
export function instructionSuccessors(instructions: readonly Instruction[], i: number): number[] {
  const ins = instructions[i]!;
  const n = instructions.length;
  const guarded = ins.guard >= 0;
  switch (ins.op) {
    case Opcode.Bra: {
      const t = branchTarget(ins);
      return guarded && t !== i + 1 ? [t, i + 1] : [t];
    }
    case Opcode.Ret:
    case Opcode.Exit:
      return guarded && i + 1 < n ? [n, i + 1] : [n];
    default:
      return [i + 1];
  }
}

/**
 * Builds the control-flow graph of a function.
 *
 * @param fn the function (only `instructions` is read; branch targets must be resolved, as the
 *   parser guarantees).
 * @returns the CFG; an empty function gives no blocks and `exit` 0.
 */
export function buildCfg(fn: Pick<PtxFunction, 'instructions'>): Cfg {
  const ins = fn.instructions;
  const n = ins.length;
  const leader = new Uint8Array(n + 1);
  if (n > 0) leader[0] = 1;
  for (let i = 0; i < n; i++) {
    const x = ins[i]!;
    if (isTerminator(x)) {
      leader[i + 1] = 1;
      if (x.op === Opcode.Bra) leader[branchTarget(x)] = 1;
    }
  }
  const starts: number[] = [];
  for (let i = 0; i < n; i++) if (leader[i]) starts.push(i);
  const blockOf = new Int32Array(n);
  const nb = starts.length;
  const exit = nb;
  for (let b = 0; b < nb; b++) {
    const end = b + 1 < nb ? starts[b + 1]! : n;
    for (let i = starts[b]!; i < end; i++) blockOf[i] = b;
  }
  const blockAt = (pc: number): number => (pc >= n ? exit : blockOf[pc]!);
  const succs: number[][] = [];
  const preds: number[][] = starts.map(() => []);
  const exitPreds: number[] = [];
  for (let b = 0; b < nb; b++) {
    const end = b + 1 < nb ? starts[b + 1]! : n;
    const s: number[] = [];
    for (const pc of instructionSuccessors(ins, end - 1)) {
      const t = blockAt(pc);
      if (!s.includes(t)) s.push(t);
    }
    succs.push(s);
    for (const t of s) {
      if (t === exit) exitPreds.push(b);
      else preds[t]!.push(b);
    }
  }
  const blocks: BasicBlock[] = starts.map((start, b) => ({
    index: b,
    start,
    end: b + 1 < nb ? starts[b + 1]! : n,
    succs: succs[b]!,
    preds: preds[b]!,
  }));
  return { blocks, exit, exitPreds, blockOf, numInstructions: n };
}

/**
 * Immediate post-dominator of every block (Cooper-Harvey-Kennedy on the reverse CFG).
 *
 * @param cfg the graph from {@link buildCfg}.
 * @returns `ipdom[b]` for each block `b` (a block index, or `cfg.exit` for the virtual exit);
 *   the array has `blocks.length + 1` entries and `ipdom[exit]` is -1. Blocks that cannot reach
 *   the exit get `cfg.exit`.
 */
export function immediatePostDominators(cfg: Cfg): Int32Array {
  const nb = cfg.blocks.length;
  const exit = cfg.exit;
  const total = nb + 1;
  // Reverse graph: node -> its CFG predecessors (exit -> exitPreds). Postorder by iterative DFS.
  const revSuccs = (v: number): readonly number[] => (v === exit ? cfg.exitPreds : cfg.blocks[v]!.preds);
  const po = new Int32Array(total).fill(-1);
  const order: number[] = [];
  const visited = new Uint8Array(total);
  const stackNode: number[] = [exit];
  const stackIdx: number[] = [0];
  visited[exit] = 1;
  while (stackNode.length > 0) {
    const top = stackNode.length - 1;
    const v = stackNode[top]!;
    const list = revSuccs(v);
    const k = stackIdx[top]!;
    if (k < list.length) {
      stackIdx[top] = k + 1;
      const w = list[k]!;
      if (!visited[w]) {
        visited[w] = 1;
        stackNode.push(w);
        stackIdx.push(0);
      }
    } else {
      po[v] = order.length;
      order.push(v);
      stackNode.pop();
      stackIdx.pop();
    }
  }
  const ipdom = new Int32Array(total).fill(-1);
  ipdom[exit] = exit;
  const intersect = (a0: number, b0: number): number => {
    let a = a0;
    let b = b0;
    while (a !== b) {
      while (po[a]! < po[b]!) a = ipdom[a]!;
      while (po[b]! < po[a]!) b = ipdom[b]!;
    }
    return a;
  };
  let changed = true;
  while (changed) {
    changed = false;
    // reverse postorder, skipping the root (last in postorder)
    for (let k = order.length - 2; k >= 0; k--) {
      const v = order[k]!;
      let next = -1;
      for (const s of cfg.blocks[v]!.succs) {
        if (po[s]! < 0 || ipdom[s]! < 0) continue;
        next = next < 0 ? s : intersect(s, next);
      }
      if (next >= 0 && ipdom[v] !== next) {
        ipdom[v] = next;
        changed = true;
      }
    }
  }
  for (let b = 0; b < nb; b++) if (ipdom[b]! < 0) ipdom[b] = exit;
  ipdom[exit] = -1;
  return ipdom;
}

/**
 * Reconvergence PC of every divergence point: for each `bra` and each guarded `ret`/`exit`, the
 * first instruction of the immediate post-dominator of its block, or `instructions.length` when
 * that is the virtual exit. Other instructions get -1.
 *
 * @param fn the function.
 * @param cfg its CFG (built when omitted).
 * @returns an Int32Array with one entry per instruction.
 */
export function reconvergencePcs(fn: Pick<PtxFunction, 'instructions'>, cfg: Cfg = buildCfg(fn)): Int32Array {
  const ipdom = immediatePostDominators(cfg);
  const n = fn.instructions.length;
  const out = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const ins = fn.instructions[i]!;
    const divergent = ins.op === Opcode.Bra || ((ins.op === Opcode.Ret || ins.op === Opcode.Exit) && ins.guard >= 0);
    if (!divergent) continue;
    const p = ipdom[cfg.blockOf[i]!]!;
    out[i] = p === cfg.exit ? n : cfg.blocks[p]!.start;
  }
  return out;
}
