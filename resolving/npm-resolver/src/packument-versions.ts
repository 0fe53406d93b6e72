import { LodeError } from '@lode/core.error'

/** The `versions` of a package document from the registry; a body that is no JSON document is `ERR_LODE_BAD_PACKUMENT`. */
export function packumentVersions (body: Buffer, name: string): Record<string, Record<string, unknown>> {
  let doc: unknown
  try {
    doc = JSON.parse(body.toString('utf8'))
  } catch {
    doc = undefined
  }
  const versions = (doc as { versions?: unknown } | undefined)?.versions
  if (doc === null || typeof doc !== 'object' || (versions !== undefined && (versions === null || typeof versions !== 'object'))) {
    throw new LodeError('BAD_PACKUMENT', `The registry sent metadata for ${name} that is not a package document.`, {
      hint: 'Check that the registry setting points at an npm-compatible registry (and not at a proxy\'s page).',
    })
  }
  return (versions ?? {}) as Record<string, Record<string, unknown>>
}
