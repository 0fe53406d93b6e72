#!/usr/bin/env bash
# The whole test suite: set up (idempotent), lint, then every package's tests on the toolchain's Node.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/setup.sh"
. "$root/scripts/env.sh"
cd "$root"
eslint --max-warnings=0 .
node scripts/check-imports.mjs
# Tests make temp dirs (projects, stores, caches) under os.tmpdir(); keep them in one place that goes afterwards.
TMPDIR=$(mktemp -d "${TMPDIR:-/tmp}/lode-test-XXXXXX")
export TMPDIR
trap 'rm -rf "$TMPDIR"' EXIT
node --test --test-concurrency=2 "$@" \
  core/*/dist/test/*.test.js fs/*/dist/test/*.test.js store/*/dist/test/*.test.js worker/*/dist/test/*.test.js \
  resolving/*/dist/test/*.test.js pkg-manager/*/dist/test/*.test.js pkg-manager/*/*/dist/test/*.test.js cli/*/dist/test/*.test.js scripts/test/*.test.mjs
# Dogfooding: the same suite again, on the node_modules lode installs for this repository.
if [ "${LODE_SKIP_DOGFOOD:-}" != "1" ]; then
  bash "$root/scripts/dogfood.sh" "$@"
fi
