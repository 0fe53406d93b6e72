/**
 * A check run beside the install rather than before it, as pnpm 11 checks the lockfile while it
 * downloads. Its verdict still comes first: whatever else fails meanwhile, a failed check is the
 * error told, as when it ran before everything else; the steps that write or run something await
 * `passed` first.
 */
export class BackgroundCheck {
  /** Settles when the check is over; rejects with its error. */
  readonly passed: Promise<void>

  constructor (check: () => Promise<void>) {
    this.passed = check()
    // Awaited by the steps that need it: a failure before then is not an unhandled rejection.
    this.passed.catch(() => {})
  }

  /** Runs `rest`; when it fails, the check's error (once the check is over, if it failed) is thrown instead of its own. */
  async first<T> (rest: () => Promise<T>): Promise<T> {
    try {
      return await rest()
    } catch (err) {
      await this.passed
      throw err
    }
  }
}
