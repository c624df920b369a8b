/** Types of bin/fingerprint.js (plain JavaScript, so the launcher needs no TypeScript loader). */
export declare const FINGERPRINT_DIRS: readonly string[];
export declare const FINGERPRINT_FILES: readonly string[];
/**
 * SHA-256 (hex) over the sorted repository-relative paths and contents of every file under
 * FINGERPRINT_DIRS and of FINGERPRINT_FILES.
 * @param root the repository root (absolute path)
 */
export declare function sourceFingerprint(root: string): string;
/** One `path size inode ctimeNs` string per fingerprinted file, sorted by path. */
export declare function sourceStats(root: string): string[];
/**
 * Whether the sources are those the build of `stamp` was made from: unchanged sourceStats, or
 * else an equal sourceFingerprint.
 */
export declare function buildIsCurrent(root: string, stamp: { fingerprint?: unknown; stats?: unknown } | null): boolean;
