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
