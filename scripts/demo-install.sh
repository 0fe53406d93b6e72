#!/usr/bin/env bash
# The quick-start demo: `lode install` of a small real project (bench/fixtures/small: react,
# express, lodash, @babel/core) from the configured registry into a temp directory, with a fresh
# store, then Node loads each dependency. Expects scripts/env.sh to be sourced.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/lode-demo-XXXXXX")"
cp "$root/bench/fixtures/small/package.json" "$root/bench/fixtures/small/pnpm-lock.yaml" "$work/"
echo "lode demo: lode install in $work (store $work/.store)"
(cd "$work" && node "$root/cli/lode/bin/lode" install --store-dir "$work/.store" --cache-dir "$work/.cache")
(cd "$work" && node -e "for (const m of ['react', 'express', 'lodash', '@babel/core']) console.log('  require(' + JSON.stringify(m) + '):', typeof require(m))")
