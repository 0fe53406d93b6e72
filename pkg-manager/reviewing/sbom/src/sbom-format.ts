import { LodeError } from '@lode/core.error'

import { CYCLONEDX_SPEC_VERSIONS } from './cyclonedx.js'
import type { SbomFormat } from './sbom.js'

/** The format options as given on the command line, checked as pnpm 11 checks them (its words), before anything is read. */
export interface GivenSbomFormat {
  format?: string | undefined
  type?: string | undefined
  specVersion?: string | undefined
  authors?: string | undefined
  supplier?: string | undefined
}

export function sbomFormatOf (given: GivenSbomFormat): SbomFormat {
  if (given.format === undefined || given.format === '') {
    throw new LodeError('SBOM_NO_FORMAT', 'The --sbom-format option is required. Use --sbom-format cyclonedx or --sbom-format spdx.', { hint: 'For example: lode sbom --sbom-format cyclonedx > sbom.cdx.json' })
  }
  const format = given.format.toLowerCase()
  if (format !== 'cyclonedx' && format !== 'spdx') {
    throw new LodeError('SBOM_INVALID_FORMAT', `Invalid SBOM format "${given.format}". Use "cyclonedx" or "spdx".`)
  }
  const type = given.type === undefined || given.type === '' ? 'library' : given.type
  if (type !== 'library' && type !== 'application') {
    throw new LodeError('SBOM_INVALID_TYPE', `Invalid SBOM type "${given.type}". Use "library" or "application".`)
  }
  let specVersion = CYCLONEDX_SPEC_VERSIONS.at(-1)!
  if (given.specVersion !== undefined) {
    if (format !== 'cyclonedx') {
      throw new LodeError('SBOM_SPEC_VERSION_UNSUPPORTED_FORMAT', 'The --sbom-spec-version option is only supported with --sbom-format cyclonedx.')
    }
    specVersion = given.specVersion.trim()
    if (!CYCLONEDX_SPEC_VERSIONS.includes(specVersion)) {
      throw new LodeError('SBOM_INVALID_SPEC_VERSION', `Invalid CycloneDX spec version "${given.specVersion}". Supported versions: ${CYCLONEDX_SPEC_VERSIONS.join(', ')}.`)
    }
  }
  return {
    format,
    type,
    specVersion,
    authors: (given.authors ?? '').split(',').map((author) => author.trim()).filter((author) => author !== ''),
    supplier: given.supplier === '' ? undefined : given.supplier,
  }
}
