/**
 * Inputs the fuzz suite (test/fuzz, `npm run fuzz`) found crashing, hanging or exhausting memory,
 * each reduced to its smallest form and fixed where the input is read:
 * - `--write-trace /proc/x` never returned (Node 20's recursive mkdirSync loops under /proc);
 * - `/dev/zero` or `/dev/urandom` as a scenario, gpgpusim.config, kernelslist.g or trace.config
 *   was read without end; a 34 MB scenario (100,000 launches) exhausted a 768 MB heap in YAML;
 * - `.local .b8 l[1099511627776]` in a kernel crashed the run with an ArrayBuffer failure;
 * - config values inside the schema's bounds but outside a model's (shared-memory warp parts 3,
 *   5000 SP units) failed the run with exit 3 instead of being refused as input.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/errors.ts';
import { SCENARIO_MAX_BYTES, readInputText } from '../../src/scenario/yaml-source.ts';
import { loadScenario } from '../../src/scenario/loader.ts';
import { importGpgpusimConfig } from '../../src/config/gpgpusim-import.ts';
import { getPreset } from '../../src/config/index.ts';
import { applyConfigOverrides } from '../../src/config/overrides.ts';
import { openAccelSimTrace } from '../../src/frontends/accelsim/reader.ts';
import { loadTraceConfig } from '../../src/frontends/accelsim/opcodes.ts';
import { MAX_CONST_BYTES, MAX_LOCAL_BYTES, MAX_STATIC_SHARED_BYTES } from '../../src/isa/parser.ts';
import { expectInputError, kernel, parse } from '../isa/helpers.ts';
import { REPO_ROOT } from './generate.ts';

const dir = mkdtempSync(join(tmpdir(), 'warpstate-fuzz-regr-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The real CLI in a child process: a regression to a hang fails on the timeout instead of blocking vitest. */
function cli(args: string[]): { code: number | null; err: string } {
  const r = spawnSync(process.execPath, [join(REPO_ROOT, 'bin/warpstate.js'), ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, err: r.stderr + r.stdout };
}

describe('bounded reading of input files', () => {
  it('reads a file of exactly the bound, refuses one byte more, naming the file', () => {
    const at = join(dir, 'at.yaml');
    const over = join(dir, 'over.yaml');
    writeFileSync(at, 'x'.repeat(1000));
    writeFileSync(over, 'x'.repeat(1001));
    expect(readInputText(at, 1000, 'a test')).toHaveLength(1000);
    expect(() => readInputText(over, 1000, 'a test')).toThrow(InputError);
    expect(() => readInputText(over, 1000, 'a test')).toThrow(`${over}: larger than 1000 bytes: not a test file`);
  });

  it('ends at once on an endless device, and names a directory or a missing file', () => {
    expect(() => readInputText('/dev/zero', 4096, 'a scenario')).toThrow('/dev/zero: larger than 4096 bytes');
    expect(() => readInputText(dir, 4096, 'a scenario')).toThrow(`${dir}: is a directory, not a scenario file`);
    expect(() => readInputText(join(dir, 'nope'), 4096, 'a scenario')).toThrow('file not found');
  });

  it('refuses a FIFO without opening it (opening would block until a writer comes)', () => {
    const fifo = join(dir, 'fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    expect(() => readInputText(fifo, 4096, 'a scenario')).toThrow(`${fifo}: is a pipe or socket, not a scenario file`);
  });

  it('bounds scenario, gpgpusim.config, kernelslist.g and trace.config readers', () => {
    expect(() => loadScenario('/dev/zero')).toThrow(`/dev/zero: larger than 8 MiB`);
    expect(() => importGpgpusimConfig('/dev/urandom')).toThrow(/\/dev\/urandom: larger than 4 MiB: not a gpgpusim.config file/);
    expect(() => openAccelSimTrace('/dev/zero')).toThrow(/\/dev\/zero: larger than 64 MiB: not a kernelslist.g file/);
    expect(() => loadTraceConfig('/dev/zero')).toThrow(/\/dev\/zero: larger than 4 MiB: not a trace.config file/);
  });

  it('refuses a scenario one byte over 8 MiB before parsing it (100,000 launches took > 768 MB)', () => {
    const big = join(dir, 'big.yaml');
    const launch = '  - { ptx: k.ptx, entry: k, grid: [1, 1, 1], block: [32, 1, 1] }\n';
    const head = 'name: big\nlaunches:\n';
    const n = Math.ceil((SCENARIO_MAX_BYTES - head.length) / launch.length);
    writeFileSync(big, head + launch.repeat(n));
    expect(SCENARIO_MAX_BYTES).toBe(8 * 1024 * 1024);
    expect(() => loadScenario(big)).toThrow(`${big}: larger than 8 MiB`);
  });
});

describe('output directories that cannot be created', () => {
  it('--write-trace under /proc ends at once with exit 2, the path and the OS error', () => {
    const r = cli(['run', 'scenarios/k-saxpy.yaml', '-q', '--write-trace', '/proc/warpstate-fuzz/x']);
    expect(r.code).toBe(2);
    expect(r.err).toContain('/proc/warpstate-fuzz/x');
    expect(r.err).toMatch(/ENOENT/);
    expect(r.err).not.toMatch(/^ {4}at /m);
  });

  it('--write-trace under a file: exit 2 with ENOTDIR', () => {
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const r = cli(['run', 'scenarios/k-saxpy.yaml', '-q', '--write-trace', join(file, 'sub')]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/ENOTDIR/);
  });
});

describe('PTX variables are bounded by the CUDA limits', () => {
  const decl = (d: string) => parse(kernel(`${d}\nret;`));
  it('.local: 512 KiB per thread is accepted, one byte more is refused at its line', () => {
    expect(MAX_LOCAL_BYTES).toBe(524288);
    expect(() => decl('.local .b8 l[524288];')).not.toThrow();
    expectInputError(() => decl('.local .b8 l[524289];'), { line: 6, reason: /'l' is 524289 bytes, more than the 524288 bytes a .local variable may have/ });
    // The fuzz case: a terabyte of local memory.
    expectInputError(() => decl('.local .b8 l[1099511627776];'), { line: 6, reason: /1099511627776 bytes/ });
  });

  it('.local frames add up: two variables of 300 KiB are more than 512 KiB', () => {
    expectInputError(() => decl('.local .b8 a[307200];\n.local .b8 b[307200];'), { line: 4, reason: /needs 614400 bytes of local memory per thread, more than 524288/ });
  });

  it('.shared: 48 KiB of static shared data (ptxas 0xc000) per variable and per kernel', () => {
    expect(MAX_STATIC_SHARED_BYTES).toBe(49152);
    expect(() => decl('.shared .b8 s[49152];')).not.toThrow();
    expectInputError(() => decl('.shared .b8 s[49153];'), { line: 6, reason: /49153 bytes, more than the 49152 bytes/ });
    // Two 32 KiB tiles, both used: 65536 bytes of static shared memory.
    const two = () => parse(kernel('.shared .b8 a[32768];\n.shared .b8 b[32768];\n.reg .b32 %r<2>;\nmov.u32 %r0, a;\nmov.u32 %r1, b;\nret;'));
    expectInputError(two, { line: 4, reason: "kernel 'k' uses 65536 bytes of static shared memory, more than 49152" });
  });

  it('.const: the 64 KiB constant bank', () => {
    expect(MAX_CONST_BYTES).toBe(65536);
    expectInputError(() => parse(kernel('ret;', undefined, '.const .b8 c[65537];')), { line: 4, reason: /65537 bytes, more than the 65536 bytes a .const variable may have/ });
  });
});

describe('config values the SM and memory models refuse are input errors at load time (exit 2, not 3)', () => {
  // Each passed the config schema and then failed the run at 0 ps with "simulation failed"
  // (exit 3): the models' own bounds (exec units: count <= 4096, latency <= 4096; shared-memory
  // banks: warpParts a power of two <= 32, banks <= 1024; tag array: line <= 1 MiB; DRAM: banks
  // and bank groups powers of two when grouped).
  const gtx480 = getPreset('gtx480');
  const refused = (kv: string, reason: RegExp) => {
    let caught: unknown;
    try {
      applyConfigOverrides(gtx480, [kv]);
    } catch (e) {
      caught = e;
    }
    expect(caught, kv).toBeInstanceOf(InputError);
    expect((caught as InputError).message).toMatch(reason);
  };
  it('refuses each value one past the model bound and accepts the bound itself', () => {
    refused('sm.units.sp.count=4097', /sm\.units\.sp\.count/);
    expect(applyConfigOverrides(gtx480, ['sm.units.sp.count=4096']).sm.units.sp.count).toBe(4096);
    refused('sm.opcodeTiming.fp.add.latency=4097', /sm\.opcodeTiming\.fp\.add\.latency/);
    refused('sm.opcodeTiming.fp.add.initiation=1048577', /initiation/);
    refused('sharedMem.banks=1025', /sharedMem\.banks/);
    refused('l1d.lineBytes=2097152', /l1d\.lineBytes/);
  });
  it('shared-memory warp parts: powers of two up to 32 only', () => {
    refused('sharedMem.warpParts=3', /sharedMem\.warpParts: must be a power of two/);
    refused('sharedMem.warpParts=64', /sharedMem\.warpParts/);
    expect(applyConfigOverrides(gtx480, ['sharedMem.warpParts=32']).sharedMem.warpParts).toBe(32);
  });
  it('DRAM banks in bank groups: both powers of two (12 banks in 4 groups divides, but is refused)', () => {
    expect(gtx480.dram.bankGroups).toBe(4);
    refused('dram.banks=12', /dram\.banks: 12 banks in 4 bank groups: both must be powers of two/);
  });
  it('a gpgpusim.config line with a bad value is named by file and line', () => {
    const text = readFileSync(join(REPO_ROOT, 'data/gpgpusim-configs/tested-cfgs/SM2_GTX480/gpgpusim.config'), 'utf8');
    const lines = text.split('\n').length + (text.endsWith('\n') ? 0 : 1);
    const file = join(dir, 'wp.config');
    writeFileSync(file, `${text}${text.endsWith('\n') ? '' : '\n'}-gpgpu_shmem_warp_parts 3\n`);
    expect(() => importGpgpusimConfig(file)).toThrow(`${file}:${lines}: -gpgpu_shmem_warp_parts: must be a power of two`);
  });
});

describe('a value that fits none of a union\'s forms is explained, not "Invalid input"', () => {
  // scenarios/k-vecadd.yaml line 15 is `args: [ { buffer: a }, { buffer: b }, ...]`, the second at column 28.
  const vecadd = join(REPO_ROOT, 'scenarios/k-vecadd.yaml');
  const message = (set: string): string => {
    try {
      loadScenario(vecadd, [set]);
    } catch (e) {
      expect(e).toBeInstanceOf(InputError);
      return (e as InputError).message;
    }
    throw new Error(`${set} was accepted`);
  };
  it('the branch whose key matches reports its own problem', () => {
    expect(message('launches[0].args[1]={u32: 1.5}')).toBe(`${vecadd}:15:28: launches[0].args[1].u32: Invalid input: expected int, received number`);
    expect(message('launches[0].args[1]={buffer: 3}')).toMatch(/launches\[0\]\.args\[1\]\.buffer: Invalid input: expected string, received number$/);
  });
  it('an unknown key lists the nine accepted forms; a scalar or a list says what was expected', () => {
    expect(message('launches[0].args[1]={x: 1}')).toBe(`${vecadd}:15:28: launches[0].args[1]: matches none of the accepted forms: { buffer }, { texture }, { surface }, { u32 }, { s32 }, { u64 }, { s64 }, { f32 }, { f64 }`);
    expect(message('launches[0].args[1]=5')).toBe(`${vecadd}:15:28: launches[0].args[1]: expected object, got number`);
    expect(message('launches[0].args[1]=[1]')).toBe(`${vecadd}:15:28: launches[0].args[1]: expected object, got a list`);
  });
});
