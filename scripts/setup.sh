#!/usr/bin/env bash
# Sets up a fresh clone with nothing but the system Node, npm and a C++ compiler:
#   1. installs the pinned Node 24 and pnpm from the npm registry into toolchain/ (system npm),
#   2. installs the repository's dependencies with that pnpm,
#   3. compiles better-sqlite3 against Node 24's headers,
#   4. builds every package (tsc -b) and the CLI's bundle (scripts/build.sh).
# Idempotent: each step is skipped or cheap when already done. `--demo` then runs `lode install` on a demo project.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

want_node=$(sed -n 's/^ *"node": "\(.*\)",\{0,1\}$/\1/p' toolchain/package.json)
want_pnpm=$(sed -n 's/^ *"pnpm": "\(.*\)",\{0,1\}$/\1/p' toolchain/package.json)
have_node=$(toolchain/node_modules/.bin/node --version 2>/dev/null || true)
have_pnpm=$(sed -n 's/^ *"version": "\(.*\)",$/\1/p' toolchain/node_modules/pnpm/package.json 2>/dev/null || true)
if [ "$have_node" != "v$want_node" ] || [ "$have_pnpm" != "$want_pnpm" ]; then
  echo "setup: installing Node $want_node and pnpm $want_pnpm into toolchain/"
  command -v npm >/dev/null || { echo "setup: npm is needed to install the toolchain" >&2; exit 1; }
  # No lockfile: it would record the registry's host; the versions are exact instead.
  (cd toolchain && npm install --no-package-lock --no-audit --no-fund --loglevel=error)
fi

. "$root/scripts/env.sh"
echo "setup: Node $(node --version), pnpm $(pnpm --version)"

pnpm install --frozen-lockfile

# better-sqlite3 is compiled from source against the toolchain's Node headers (its bundled
# prebuilds are then unused: build/Release wins). A stamp records which Node it was built for.
sqlite_dir=$(cd store/index && node -p "path.dirname(require.resolve('better-sqlite3/package.json'))")
stamp="$sqlite_dir/build/lode-built-for"
if [ ! -f "$sqlite_dir/build/Release/better_sqlite3.node" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$(node --version)" ]; then
  echo "setup: compiling better-sqlite3 for Node $(node --version) (about a minute)"
  log="$sqlite_dir/build-lode.log"
  (cd "$sqlite_dir" && node-gyp rebuild --release --jobs="$(nproc 2>/dev/null || echo 2)" --force_build=1 \
    --nodedir="$npm_config_nodedir" > "$log" 2>&1) || { cat "$log" >&2; echo "setup: compiling better-sqlite3 failed" >&2; exit 1; }
  node --version > "$stamp"
fi
(cd store/index && node -e "require('better-sqlite3')(':memory:').close()")

bash "$root/scripts/build.sh"
echo "setup: done"

if [ "${1:-}" = "--demo" ]; then
  bash scripts/demo-install.sh
fi
