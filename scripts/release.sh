#!/usr/bin/env bash
# Makes the release on a fresh clone or a working one: sets up and builds (scripts/setup.sh,
# idempotent), then packs cli/lode (the `lode` package: bin/lode, the bundle, the
# API's declarations) with lode's own `pack` into dist/release/lode-<version>.tgz, and prints the
# tarball's path last. Versions come from .changeset (`npm run changeset version` first).
#   scripts/release.sh [--no-build] [<destination dir>]
# --no-build packs what the last build left (the release test does so: a build would replace the
# bundle under the other tests' feet).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=1
if [ "${1:-}" = "--no-build" ]; then build=0; shift; fi
dest=$(mkdir -p "${1:-$root/dist/release}" && cd "${1:-$root/dist/release}" && pwd)
if [ "$build" = 1 ]; then bash "$root/scripts/setup.sh"; fi
. "$root/scripts/env.sh"
cd "$root"
rm -f "$dest"/lode-*.tgz
(cd cli/lode && node bin/lode pack --pack-destination "$dest" --json) > "$dest/pack.json"
node -e 'console.log([].concat(JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")))[0].filename)' "$dest/pack.json"
