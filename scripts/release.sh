#!/usr/bin/env bash
# Makes the release: builds, then packs cli/lode (the `lode` package: bin/lode, the bundle, the
# API's declarations) with lode's own `pack` into dist/release/lode-<version>.tgz, and prints the
# tarball's path last. Versions come from .changeset (`npm run changeset version` first).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/env.sh"
cd "$root"
bash scripts/build.sh
rm -rf dist/release
mkdir -p dist/release
(cd cli/lode && node bin/lode pack --pack-destination "$root/dist/release" --json) > dist/release/pack.json
tarball=$(node -e 'const [p] = [].concat(JSON.parse(require("fs").readFileSync("dist/release/pack.json", "utf8"))); console.log(p.filename)')
echo "$root/dist/release/$(basename "$tarball")"
