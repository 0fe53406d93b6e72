#!/usr/bin/env bash
# Dogfooding: lode installs this repository, then the repository builds, lints and passes its
# tests on the node_modules lode made. Works on a copy of the tracked files (in $TMPDIR), with
# this checkout's built lode and its toolchain; the store is the user's lode store.
# Arguments go to `node --test`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/env.sh"
copy=$(mktemp -d "${TMPDIR:-/tmp}/lode-dogfood-XXXXXX")
trap 'rm -rf "$copy"' EXIT
(cd "$root" && git ls-files -z | tar --null -T - -cf -) | tar -xf - -C "$copy"
ln -s "$root/toolchain/node_modules" "$copy/toolchain/node_modules"

echo "dogfood: lode install --frozen-lockfile in a copy of the repository"
(cd "$copy" && node "$root/cli/lode/bin/lode" install --frozen-lockfile --reporter=append-only)

root="$copy"
. "$copy/scripts/env.sh"
cd "$copy"
(cd store/index && node -e "require('better-sqlite3')(':memory:').close()")
bash scripts/build.sh
eslint --max-warnings=0 .
echo "dogfood: the test suite on lode's node_modules (but the comparisons with pnpm)"
# The comparisons with pnpm (cli's compare-*) check what lode writes against what pnpm writes, which
# does not depend on who installed lode's own dependencies; the first pass ran them. Left out here,
# they keep the two passes within CI's 90 minutes on a 2-core machine (14 files, among the slowest).
cli_tests=()
for file in cli/*/dist/test/*.test.js; do
  case "${file##*/}" in compare-*) ;; *) cli_tests+=("$file") ;; esac
done
node --test --test-concurrency=2 "$@" \
  core/*/dist/test/*.test.js fs/*/dist/test/*.test.js store/*/dist/test/*.test.js worker/*/dist/test/*.test.js \
  resolving/*/dist/test/*.test.js pkg-manager/*/dist/test/*.test.js pkg-manager/*/*/dist/test/*.test.js \
  "${cli_tests[@]}" scripts/test/*.test.mjs
