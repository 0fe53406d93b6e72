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
      export pnpm_config_nodedir="$dir"
      break
    fi
  done
fi
# The system Node's headers must never be picked up by a build meant for the toolchain's Node.
unset NODE_OPTIONS
