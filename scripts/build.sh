#!/usr/bin/env bash
# Builds every package (tsc -b, TypeScript project references), then the CLI's bundle, which
# bin/lode loads (cli/lode/scripts/bundle.mjs; bin/lode falls back to tsc's output when the
# bundle is older than it), and the API's declarations in one file (cli/lode/scripts/types.mjs).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/env.sh"
cd "$root"
tsc -b
node cli/lode/scripts/bundle.mjs
node cli/lode/scripts/types.mjs
