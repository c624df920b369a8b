/**
 * warpstate's PTX front end: parser, IR and static analyses (`src/isa/`).
 *
 * - {@link parsePtx}: PTX text -> validated {@link PtxModule} (see `ir.ts` for the IR).
 * - {@link buildCfg}, {@link immediatePostDominators}, {@link reconvergencePcs}: CFG and SIMT
 *   reconvergence points.
 * - {@link analyzePhases}: phases, phase distance and length (paper 000 §3.4.2.1).
 * - {@link analyzeElf}, {@link elfCalculatorPriority}: ELF program points and priorities
 *   (paper 004 §3.1-3.2).
 * - {@link annotateFunction}: the per-instruction tables the PATS and ELF policies read
 *   (phase of each PC, phase distance and length, ELF priority and recalculation codes, control
 *   class).
 */
export * from './ir.ts';
export { parsePtx, MAX_REGISTERS_PER_FUNCTION, MAX_INITIALISED_BYTES } from './parser.ts';
export { registerTypeCompatible } from './decode.ts';
export { tokenize, TokenKind } from './lexer.ts';
export type { Token } from './lexer.ts';
export { parseLiteral, f32ToBits, bitsToF32, f64ToBits, bitsToF64 } from './literals.ts';
export type { Literal } from './literals.ts';
export { classifyInstruction, accessBytes, isLongLatency, instructionRegisters } from './properties.ts';
export { buildCfg, immediatePostDominators, reconvergencePcs, instructionSuccessors, branchTarget } from './cfg.ts';
export type { BasicBlock, Cfg } from './cfg.ts';
export { analyzePhases, PhaseStart, phaseLatencyFunction, isPhaseSync } from './phase.ts';
export type { Phase, PhaseAnalysis, PhaseOptions, PhaseLatencyModel, PipelineLatencyModel } from './phase.ts';
export { analyzeElf, elfPriorities, elfCalculatorPriority, isElfLoad, ElfRecalc, elfDecrement } from './elf.ts';
export type { ElfAnalysis, ElfOptions, ElfProgramPoint, ElfRecalcRule } from './elf.ts';
export { annotateFunction, annotateModule, ctrlClassOf, CtrlClass } from './annotations.ts';
export type { AnnotationOptions, FunctionAnnotation } from './annotations.ts';
