# Sourced by the other scripts: puts the toolchain's Node 24 and pnpm first on PATH and points
# node-gyp at Node 24's headers, so native addons are built for the Node that loads them.
# Expects $root to be the repository root.
toolchain="$root/toolchain/node_modules"
export PATH="$toolchain/.bin:$root/node_modules/.bin:$PATH"
if [ -x "$toolchain/.bin/node" ]; then
  platform_pkg="node-$("$toolchain/.bin/node" -p 'process.platform + "-" + process.arch')"
  for dir in "$toolchain/node/node_modules/$platform_pkg" "$toolchain/$platform_pkg"; do
    if [ -f "$dir/include/node/node_version.h" ]; then
      export npm_config_nodedir="$dir"
      break
    fi
  done
fi
# Options meant for the system Node (e.g. flags it lacks or new ones it rejects) stay with it.
unset NODE_OPTIONS
