/**
 * The one error type for failures a user can cause. `code` is part of lode's interface
 * (`ERR_LODE_*`, stable across versions); `hint` says what to do about it.
 */
export class LodeError extends Error {
  readonly code: `ERR_LODE_${string}`
  readonly hint: string | undefined

  constructor (code: string, message: string, opts: { hint?: string, cause?: unknown } = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause })
    this.name = 'LodeError'
    this.code = `ERR_LODE_${code}`
    this.hint = opts.hint
  }
}

/** The plain-data form of a LodeError, for crossing a worker-thread boundary. */
export interface LodeErrorData {
  code: `ERR_LODE_${string}`
  message: string
  hint?: string
}

export function isLodeError (err: unknown, code?: string): err is LodeError {
  return err instanceof LodeError && (code === undefined || err.code === code)
}

export function toLodeErrorData (err: LodeError): LodeErrorData {
  return err.hint === undefined
    ? { code: err.code, message: err.message }
    : { code: err.code, message: err.message, hint: err.hint }
}

export function fromLodeErrorData (data: LodeErrorData): LodeError {
  return new LodeError(
    data.code.slice('ERR_LODE_'.length),
    data.message,
    data.hint === undefined ? {} : { hint: data.hint }
  )
}

/** True when `err` is a Node system error with this errno code (ENOENT, EEXIST, …). */
export function hasErrno (err: unknown, code: string): err is NodeJS.ErrnoException {
  return err instanceof Error && (err as NodeJS.ErrnoException).code === code
}

// What each file-system errno a user can cause means, and what to do about it.
const FILE_SYSTEM_ERRORS: Readonly<Record<string, { what: string, hint: string }>> = {
  EACCES: { what: 'permission denied', hint: 'Check the permissions of this path (and of the directories above it), or run lode as a user who may write there.' },
  EPERM: { what: 'operation not permitted', hint: 'Check the permissions and attributes of this path (an immutable or read-only flag), or run lode as a user who may change it.' },
  EROFS: { what: 'the file system is read-only', hint: 'Install into a directory on a writable file system, or set store-dir and cache-dir to writable ones.' },
  ENOSPC: { what: 'no space left on the device', hint: 'Free some disk space (or move store-dir to a disk with room), then install again.' },
  EDQUOT: { what: 'the disk quota is exceeded', hint: 'Free some space within your quota, then install again.' },
  EISDIR: { what: 'it is a directory where a file belongs', hint: 'Remove or rename that directory, then run the command again.' },
  ENOTDIR: { what: 'a file stands where a directory belongs', hint: 'Remove or rename the file that is in the way, then run the command again.' },
  EMFILE: { what: 'too many open files', hint: 'Raise the open-file limit (ulimit -n), or lower networkConcurrency and childConcurrency.' },
}

/**
 * A system error of the file system that the user's machine causes (permissions, a read-only or
 * full disk, a directory where a file belongs) as a `LodeError` (`ERR_LODE_EACCES`, …) naming the
 * path (`file`, or the error's own) and what to do; undefined for any other error, which stays a
 * bug to report.
 */
export function fileSystemError (err: unknown, file?: string): LodeError | undefined {
  if (!(err instanceof Error)) return undefined
  const { code, syscall } = err as NodeJS.ErrnoException
  const known = code === undefined ? undefined : FILE_SYSTEM_ERRORS[code]
  if (known === undefined || code === undefined) return undefined
  // A read or write on an open file has no path of its own: the caller names it.
  const where = (file ?? (err as NodeJS.ErrnoException).path) === undefined ? '' : ` ${file ?? (err as NodeJS.ErrnoException).path}`
  return new LodeError(code, `Cannot ${syscall ?? 'access'}${where}: ${known.what}.`, { hint: known.hint, cause: err })
}

