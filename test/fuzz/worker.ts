/**
 * Fuzz worker: a long-lived child process (forked by runner.ts with `--import tsx` and a heap
 * cap) that runs many cases through the CLI's own `main(argv, out, err)` in-process, so a case
 * costs the run, not a Node and tsx start (~0.8 s here). A hang or a memory blow-up kills the
 * whole worker; the runner then starts a fresh one and re-runs failures as real CLI processes.
 *
 * Protocol (IPC): parent sends `{ id, argv }`; worker answers `{ id, code, out, err, ms }`, or
 * `{ id, uncaught }` for an exception that escaped `main` (then exits).
 */
import { main } from '../../src/cli/main.ts';

/** Keeps the first and last 16 KiB of a stream (enough to classify; bounded memory). */
class Capture {
  private head = '';
  private tail = '';
  private dropped = 0;
  add(s: string): void {
    if (this.head.length < 16384) {
      const room = 16384 - this.head.length;
      this.head += s.slice(0, room);
      s = s.slice(room);
    }
    if (s.length === 0) return;
    this.tail += s;
    if (this.tail.length > 32768) {
      this.dropped += this.tail.length - 16384;
      this.tail = this.tail.slice(-16384);
    }
  }
  text(): string {
    return this.dropped > 0 ? `${this.head}\n[... ${this.dropped} chars left out ...]\n${this.tail}` : this.head + this.tail;
  }
}

let current: number | null = null;

const fatal = (e: unknown) => {
  const text = e instanceof Error ? (e.stack ?? String(e)) : String(e);
  process.send!({ id: current, uncaught: text }, () => process.exit(70));
};
process.on('uncaughtException', fatal);
process.on('unhandledRejection', fatal);

process.on('message', async (msg: { id: number; argv: string[] }) => {
  current = msg.id;
  const out = new Capture();
  const err = new Capture();
  const t0 = performance.now();
  const code = await main(
    msg.argv,
    (s) => void out.add(s),
    (s) => void err.add(s),
  );
  // Let writes and timers that the case left behind fail now, inside this case.
  await new Promise((r) => setImmediate(r));
  process.send!({ id: msg.id, code, out: out.text(), err: err.text(), ms: performance.now() - t0 });
  current = null;
});
// The runner is gone (killed, interrupted): nothing more will come.
process.on('disconnect', () => process.exit(0));
process.send!({ ready: true });
