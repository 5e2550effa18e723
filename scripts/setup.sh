#!/usr/bin/env bash
# Sets up a fresh machine for loopguard: Debian packages the tests use, pnpm, dependencies, build.
# Idempotent: what is already there is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."

PNPM_VERSION=12.4.2
APT_PACKAGES=(chromium prometheus docker-compose)
missing=()
command -v chromium >/dev/null 2>&1 || missing+=(chromium)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
if ((${#missing[@]} > 0)); then
  if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO="sudo"
    echo "setup: installing ${missing[*]} (apt)"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    echo "setup: apt-get not found; install ${APT_PACKAGES[*]} yourself for the browser, alert and compose tests" >&2
  fi
fi

if [ "$(pnpm --version 2>/dev/null || true)" != "$PNPM_VERSION" ]; then
  echo "setup: installing pnpm@$PNPM_VERSION (npm)"
  npm install -g "pnpm@$PNPM_VERSION" --no-audit --no-fund --loglevel=error
fi

# Node 22 and 24 for the install tests (test/helpers/nodes.ts), from the npm registry's `node`
# package, which carries the binary: no other download
for major in 22 24; do
  if [ ! -x ".nodes/$major/node_modules/node/bin/node" ]; then
    echo "setup: installing node@$major into .nodes/$major (npm)"
    npm install --prefix ".nodes/$major" "node@$major" --no-audit --no-fund --loglevel=error >/dev/null
  fi
done

pnpm install --frozen-lockfile
pnpm run build
