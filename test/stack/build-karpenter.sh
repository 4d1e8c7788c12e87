#!/usr/bin/env bash
# Builds the real Karpenter (github.com/aws/karpenter-provider-aws) from the Go module proxy and
# caches it by version outside the repository, like build-stack.sh:
#   karpenter-controller  <- cmd/controller, for the takeover test and the side-by-side bench
#   karpenter-oracle-<h>  <- test/karpenter-oracle (our code calling Karpenter's AMI resolution,
#                            instance types and instance provider: launch templates and CreateFleet),
#                            for the differential test; <h> hashes its sources
#   nodeadm               <- github.com/awslabs/amazon-eks-ami/nodeadm at the version Karpenter
#                            requires: its own config parser checks every AL2023 user data
#   ../examples/v1        <- Karpenter's examples/v1 at this version, the differential corpus
# The oracle's cache key includes a hash of its sources, so editing it rebuilds only it.
# Prints the bin directory on its last line, and before it `oracle <path>` when it built the oracle.
set -euo pipefail

# v1.15.0 is the newest release whose whole build graph the module proxy serves: the proxy lists
# v1.15.1 and v1.15.2, but both require sigs.k8s.io/karpenter v1.15.1, whose zip it refuses ("403
# Forbidden, This module version is not available"). The oracle's go.mod pins the same version,
# and test/stack/karpenter.ts asks for it too, so the oracle, the takeover test and the bench agree.
KARPENTER_VERSION="${KARPENTER_VERSION:-v1.15.0}"
CACHE_ROOT="${NODESMITH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nodesmith}"
BIN="$CACHE_ROOT/karpenter/${KARPENTER_VERSION}/bin"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ORACLE_SRC="$HERE/../karpenter-oracle"
mkdir -p "$BIN"
# Karpenter's go.mod names a newer patch release of Go than the machine may have; `auto` lets the
# go command fetch that toolchain (itself a module on the proxy) instead of refusing.
export CGO_ENABLED=0 GOFLAGS="-mod=mod -p=${KARPENTER_BUILD_JOBS:-2}" GOTOOLCHAIN=auto

log() { printf '[build-karpenter] %s\n' "$*" >&2; }

# Module versions Karpenter requires that the proxy we can reach does not serve (403 "not
# available"), each replaced by the nearest release it does serve. Only pkg/aws's metrics client
# imports timestreamwrite; a patch release apart, the API Karpenter uses is the same.
KARPENTER_REPLACE="${KARPENTER_REPLACE:-github.com/aws/aws-sdk-go-v2/service/timestreamwrite=github.com/aws/aws-sdk-go-v2/service/timestreamwrite@v1.43.0}"
apply_replacements() {
  local r; for r in $KARPENTER_REPLACE; do go mod edit -replace "$r"; done
}

build_controller() {
  [ -x "$BIN/karpenter-controller" ] && { log "controller ${KARPENTER_VERSION}: cached"; return; }
  local dir; dir="$(mktemp -d)"
  log "controller ${KARPENTER_VERSION}: building in $dir"
  (
    cd "$dir"
    go mod init nodesmith.local/build >/dev/null 2>&1
    apply_replacements
    go get "github.com/aws/karpenter-provider-aws@${KARPENTER_VERSION}" >/dev/null
    go build -trimpath -ldflags "-s -w" -o "$BIN/karpenter-controller.tmp.$$" \
      github.com/aws/karpenter-provider-aws/cmd/controller
    mv "$BIN/karpenter-controller.tmp.$$" "$BIN/karpenter-controller"
  )
  rm -rf "$dir"
}

# Several worktrees share this cache and may build different oracle sources at the same time, so
# each source hash keeps its own binary (printed as `oracle <path>`), every build writes to its own
# temporary file, and only builds nobody has used for a week are removed.
build_oracle() {
  local hash; hash="$( (cd "$ORACLE_SRC" && cat go.mod go.sum *.go) | sha256sum | cut -c1-12)"
  ORACLE="$BIN/karpenter-oracle-$hash"
  if [ -x "$ORACLE" ]; then
    log "oracle ${hash}: cached"
  else
    log "oracle ${hash}: building"
    local tmp="$ORACLE.tmp.$$"
    (
      cd "$ORACLE_SRC"
      # The committed go.mod pins the Karpenter version; an override builds against another one.
      if grep -q "github.com/aws/karpenter-provider-aws ${KARPENTER_VERSION}\$" go.mod; then
        go build -trimpath -ldflags "-s -w" -o "$tmp" .
      else
        local dir; dir="$(mktemp -d)"; cp go.mod go.sum ./*.go "$dir"/
        (cd "$dir" && apply_replacements && go get "github.com/aws/karpenter-provider-aws@${KARPENTER_VERSION}" >/dev/null \
          && go build -trimpath -ldflags "-s -w" -o "$tmp" .)
        rm -rf "$dir"
      fi
    )
    mv "$tmp" "$ORACLE"
  fi
  touch "$ORACLE"
  find "$BIN" -name 'karpenter-oracle-*' -mtime +7 -delete
}

# nodeadm's config parser lives in internal packages no other module may import, so the check runs
# its binary. Its go.mod has no replace lines; a throwaway module builds it with its own deps.
build_nodeadm() {
  [ -x "$BIN/nodeadm" ] && { log "nodeadm: cached"; return; }
  local gomod version dir
  gomod="$(go mod download -json "github.com/aws/karpenter-provider-aws@${KARPENTER_VERSION}" | sed -n 's/.*"GoMod": "\(.*\)",/\1/p')"
  version="$(sed -n 's#^\tgithub.com/awslabs/amazon-eks-ami/nodeadm \(v[^ ]*\).*#\1#p' "$gomod")"
  dir="$(mktemp -d)"
  log "nodeadm ${version}: building"
  (
    cd "$dir"
    go mod init nodesmith.local/build >/dev/null 2>&1
    go get "github.com/awslabs/amazon-eks-ami/nodeadm@${version}" >/dev/null
    go build -trimpath -ldflags "-s -w" -o "$BIN/nodeadm.tmp.$$" github.com/awslabs/amazon-eks-ami/nodeadm/cmd/nodeadm
    mv "$BIN/nodeadm.tmp.$$" "$BIN/nodeadm"
  )
  rm -rf "$dir"
}

copy_examples() {
  local examples="$BIN/../examples/v1"
  [ -d "$examples" ] && return
  local src
  src="$(go mod download -json "github.com/aws/karpenter-provider-aws@${KARPENTER_VERSION}" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')"
  local tmp="$examples.tmp.$$"
  mkdir -p "$tmp" && cp "$src"/examples/v1/*.yaml "$tmp"/ && chmod -R u+w "$tmp"
  # Another build may have placed them meanwhile; its copy is the same.
  mv -T "$tmp" "$examples" 2>/dev/null || rm -rf "$tmp"
}

start=$(date +%s)
case "${1:-all}" in
  controller) build_controller ;;
  nodeadm) build_nodeadm; copy_examples ;;
  oracle) build_oracle; build_nodeadm; copy_examples ;;
  all) build_controller; build_oracle; build_nodeadm; copy_examples ;;
esac
log "done in $(( $(date +%s) - start ))s"
[ -n "${ORACLE:-}" ] && echo "oracle $ORACLE"
echo "$BIN"
