// Its own module (`@lode/worker.extract/limits`): the main thread reads the defaults without loading the extraction code.

/** Bounds on what one tarball may unpack to: tarballs are attacker-controlled input. */
export interface ExtractLimits {
  /** Bytes the gzip data may inflate to (the tar archive: files, headers, padding). */
  maxSize: number
  /** Regular-file entries (a path repeated counts each time). */
  maxFiles: number
  /** Bytes (UTF-8) of a regular-file entry's path as the tarball has it, first segment included. */
  maxPathLength: number
}

export const DEFAULT_EXTRACT_LIMITS: Readonly<ExtractLimits> = Object.freeze({
  // The largest real npm packages unpack to a few hundred MB. 1 GiB leaves them room several
  // times over and still bounds the disk and time one tarball can take (memory is bounded
  // whatever the size: large files are streamed to the CAS). A 2 GiB bomb fits in a 2 MB tarball.
  maxSize: 1024 * 1024 * 1024,
  // Real packages have up to some tens of thousands of files. Each one costs a record in the
  // index row, built in memory: extracting 100,000 small files peaks at about 300 MB of RSS.
  maxFiles: 100_000,
  // Linux's PATH_MAX is 4096 bytes for the whole path, of which node_modules/.pnpm/<name>@<version>/
  // node_modules/<name>/ can take a few hundred; real package paths are far below 1024.
  maxPathLength: 1024,
})
