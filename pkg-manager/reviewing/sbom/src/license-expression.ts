import parseSpdx from 'spdx-expression-parse'
import spdxDeprecated from 'spdx-license-ids/deprecated.json' with { type: 'json' }
import spdxIds from 'spdx-license-ids/index.json' with { type: 'json' }

// How an SBOM states a license: a CycloneDX SPDX id, an SPDX expression, or a name as written.

/** SPDX license ids by their lower-case spelling (`mit` → `MIT`): what a package wrote is matched case-insensitively. */
const SPDX_IDS_BY_LOWER_CASE = new Map([...spdxIds, ...spdxDeprecated].map((id) => [id.toLowerCase(), id]))
const OPERATORS = ['AND', 'OR', 'WITH']

export type CycloneDxLicense = { license: { id: string } } | { license: { name: string } } | { expression: string }

/**
 * pnpm 11's classification: one SPDX id (any case, `+` not allowed) is an `id`; a valid SPDX
 * expression (ids in any case, operators upper-case) an `expression` as written; anything else a `name`.
 */
export function cycloneDxLicense (license: string): CycloneDxLicense {
  const trimmed = license.replace(/^ +| +$/g, '')
  const id = SPDX_IDS_BY_LOWER_CASE.get(trimmed.toLowerCase())
  if (!trimmed.endsWith('+') && id !== undefined && isSingleLicense(id)) return { license: { id } }
  if (isSpdxExpression(license)) return { expression: license }
  return { license: { name: license } }
}

function isSingleLicense (id: string): boolean {
  try {
    const parsed = parseSpdx(id)
    return 'license' in parsed && parsed.exception === undefined
  } catch {
    return false
  }
}

function isSpdxExpression (license: string): boolean {
  const tokens = license.split(/([^A-Za-z0-9.-])/)
  const normalized: string[] = []
  for (const [index, token] of tokens.entries()) {
    // Odd entries are the separators between tokens.
    if (index % 2 === 1) {
      normalized.push(token)
      continue
    }
    // An operator in the wrong case makes the expression invalid, as SPDX says.
    if (OPERATORS.some((operator) => token.toUpperCase() === operator && token !== operator)) return false
    normalized.push(SPDX_IDS_BY_LOWER_CASE.get(token.toLowerCase()) ?? token)
  }
  try {
    parseSpdx(normalized.join(''))
    return true
  } catch {
    return false
  }
}

// The license ids pnpm 11 takes from a license file's text into an SBOM (a guess from other words is left out).
const FILE_LICENSE_IDS = new Set([
  'Apache-1.1', 'Apache-2.0', 'BSD-4-Clause', 'BSD-3-Clause', 'BSD-2-Clause', '0BSD', 'CC0-1.0', 'CDDL-1.0', 'EPL-1.0', 'GPL-2.0-only',
  'GPL-3.0-only', 'ISC', 'LGPL-3.0-only', 'LGPL-2.1-only', 'MIT', 'MPL-1.1', 'MPL-2.0', 'OFL-1.1', 'PSF-2.0', 'WTFPL', 'Zlib',
])

/** pnpm 11's test for a license read from a file (or a project's own): SPDX ids joined by OR, optionally in parentheses. */
export function isPlainSpdxLicense (value: string): boolean {
  return value !== '' && value.replace(/^\(|\)$/g, '').split(/\s+OR\s+/i).every((id) => FILE_LICENSE_IDS.has(id.trim()))
}
