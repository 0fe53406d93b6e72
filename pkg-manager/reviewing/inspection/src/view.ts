import { LodeError } from '@lode/core.error'
import type { Config } from '@lode/pkg-manager.config.settings'
import { registryClientFor } from '@lode/pkg-manager.installing.installer'
import { parseWantedSpec, pickVersion, trimPackument } from '@lode/resolving.npm-resolver'
import type { RegistrySpec } from '@lode/resolving.npm-resolver'
import { encodeName, registryFor } from '@lode/resolving.npm-resolver/registries'
import { ACCEPT_FULL } from '@lode/resolving.registry-client'

// pnpm 11's `view` (`info`, `show`, `v`): one version of a package as the registry's full document
// has it, picked as an install picks it (a tag, `latest` by default; a range's `latest` when it
// fits, else its highest), with what pnpm adds to it. No release age applies: it shows, it installs nothing.

type Json = Record<string, unknown>

/** `name`, `name@tag`, `name@version`, `name@range`, `alias@npm:name@range`; anything else is `ERR_LODE_INVALID_PACKAGE_NAME`. */
export function parseViewSpec (raw: string): RegistrySpec {
  const at = raw.indexOf('@', 1)
  const name = at === -1 ? raw : raw.slice(0, at)
  const specifier = at === -1 ? 'latest' : raw.slice(at + 1) || 'latest'
  let spec
  try {
    spec = parseWantedSpec(name, specifier, 'the command line')
  } catch {
    throw invalidName(raw, '')
  }
  if (spec.kind !== 'registry') throw invalidName(raw, '. This command only supports registry packages.')
  return spec
}

/** The version's document from the registry's full packument, with pnpm's additions (versions, counts, dist-tags, times). */
export async function viewPackage (
  config: Config,
  raw: string,
  opts: { onWarning: (message: string) => void, signal?: AbortSignal }
): Promise<Json> {
  const spec = parseViewSpec(raw)
  const { name } = spec
  const registry = registryFor({ default: config.registry, scoped: config.scopedRegistries }, name)
  const client = registryClientFor(config, { onWarning: opts.onWarning, signal: opts.signal })
  let doc: Json
  try {
    const answer = await client.get(`${registry}${encodeName(name)}`, { accept: ACCEPT_FULL, subject: name })
    // Nothing was asked conditionally: a 304 is the registry's mistake.
    if (answer.status !== 200) throw new LodeError('BAD_PACKUMENT', `The registry answered ${answer.status} for ${name}'s metadata, which was not asked conditionally.`, { hint: 'Check the registry setting.' })
    doc = JSON.parse(answer.body.toString('utf8')) as Json
  } catch (err) {
    if (err instanceof SyntaxError) throw new LodeError('BAD_PACKUMENT', `The registry sent metadata for ${name} that is not JSON.`, { hint: 'Check the registry setting.' })
    throw err
  } finally {
    await client.close()
  }
  const version = pickVersion(trimPackument(name, registry, doc), spec)
  const versions = isObject(doc['versions']) ? doc['versions'] : {}
  const data = version === undefined ? undefined : versions[version]
  if (!isObject(data)) {
    const wanted = spec.type === 'version' ? spec.version : spec.type === 'range' ? spec.range : spec.tag
    throw new LodeError('PACKAGE_NOT_FOUND', `No matching version found for ${name}@${wanted}`, { hint: `lode view ${name} versions lists the versions the registry has.` })
  }
  const dependencies = isObject(data['dependencies']) ? Object.keys(data['dependencies']).length : 0
  const versionNames = Object.keys(versions)
  return {
    ...data,
    author: isObject(data['author']) ? data['author']['name'] : data['author'],
    versions: versionNames,
    versionsCount: versionNames.length > 0 ? versionNames.length : undefined,
    depsCount: dependencies > 0 ? dependencies : undefined,
    distTags: doc['dist-tags'],
    'dist-tags': doc['dist-tags'],
    time: doc['time'],
  }
}

function invalidName (raw: string, more: string): LodeError {
  return new LodeError('INVALID_PACKAGE_NAME', `Invalid package name: "${raw}"${more}`, { hint: 'Give a package of the registry: name, name@version, name@range or name@tag.' })
}

function isObject (value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
