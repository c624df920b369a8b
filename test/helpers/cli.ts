/** Runs the CLI in-process and captures its output and exit code. */
import { main } from '../../src/cli/main.ts';

export async function runCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, (s) => void (out += s), (s) => void (err += s));
  return { code, out, err };
}
