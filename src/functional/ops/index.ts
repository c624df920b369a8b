/**
 * Scalar semantics of every PTX opcode warpstate executes, as pure functions (see each file's
 * header for the representation and the PTX ISA sections it implements).
 */

export * from './int.ts';
export * from './fp-bits.ts';
export * from './fp-round.ts';
export * from './fp-exact.ts';
export * from './float.ts';
export * from './half.ts';
export * from './cvt.ts';
export * from './compare.ts';
export * from './atomic.ts';
