/**
 * The fingerprint of everything the CLI bundle (`dist/cli`, scripts/build.ts) is built from, so
 * `bin/warpstate.js` can tell a current build from a stale one (issue 11 item 1).
 *
 * Plain JavaScript: it runs before any TypeScript loader exists.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Folders (every file under them, recursively) and single files of the repository that go into a
 * build: the sources, the unit folders discovered at build time, the build script itself and
 * what fixes the bundled dependencies (package-lock.json) and the compiler options.
 */
export const FINGERPRINT_DIRS = ['src', 'machines'];
export const FINGERPRINT_FILES = ['package.json', 'package-lock.json', 'tsconfig.json', 'scripts/build.ts', 'bin/fingerprint.js', 'bin/built-cli.js'];

/** Appends the repository-relative paths of the regular files under `dir` to `out`. */
function walk(root, dir, out) {
  for (const e of readdirSync(join(root, dir), { withFileTypes: true })) {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) walk(root, rel, out);
    else if (e.isFile()) out.push(rel);
  }
}

/** The fingerprinted files: repository-relative paths, sorted. */
function fingerprintedFiles(root) {
  const files = [...FINGERPRINT_FILES];
  for (const d of FINGERPRINT_DIRS) walk(root, d, files);
  return files.sort();
}

/**
 * SHA-256 (hex) over the sorted paths and contents of the fingerprinted files under `root`.
 * A content hash, not modification times: a checkout, a copy or a clock change cannot make a
 * stale build look current, and adding, removing or renaming a file changes it too.
 * Cost: about 2 MB read and hashed, some 15 ms.
 * @param root the repository root (absolute path)
 * @throws Error (ENOENT) when a fingerprinted single file is missing
 */
export function sourceFingerprint(root) {
  const h = createHash('sha256');
  for (const f of fingerprintedFiles(root)) {
    h.update(f);
    h.update('\0');
    h.update(readFileSync(join(root, f)));
    h.update('\0');
  }
  return h.digest('hex');
}

/**
 * One string per fingerprinted file: path, size, inode and status-change time in ns. The
 * status-change time (ctime) moves on every write, rename-over or `utimes` and cannot be set
 * back, so equal strings mean the file was not touched since they were taken.
 * @param root the repository root (absolute path)
 */
export function sourceStats(root) {
  return fingerprintedFiles(root).map((f) => {
    const st = statSync(join(root, f), { bigint: true });
    return `${f} ${st.size} ${st.ino} ${st.ctimeNs}`;
  });
}

/**
 * Whether the sources are those a build was made from. Fast path (a few ms): the same files
 * with unchanged {@link sourceStats}. Otherwise (a file touched, added or removed) the content
 * hash decides, so a touched but unchanged file does not make the build stale.
 * @param root the repository root (absolute path)
 * @param stamp the build's `stamp.json`: `{ fingerprint, stats }`
 */
export function buildIsCurrent(root, stamp) {
  if (typeof stamp?.fingerprint !== 'string') return false;
  try {
    const stats = sourceStats(root);
    if (Array.isArray(stamp.stats) && stamp.stats.length === stats.length && stats.every((s, i) => s === stamp.stats[i])) return true;
    return sourceFingerprint(root) === stamp.fingerprint;
  } catch {
    return false;
  }
}
