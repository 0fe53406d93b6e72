#!/usr/bin/env bash
# Runs a command with the toolchain's Node 24 and pnpm first on PATH.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
. "$root/scripts/env.sh"
if [ ! -x "$root/toolchain/node_modules/.bin/node" ]; then
  echo "lode: the toolchain is not installed; run 'npm run setup' first." >&2
  exit 1
fi
cd "$root"
exec "$@"
