#!/usr/bin/env bash
# Builds the real Karpenter (github.com/aws/karpenter-provider-aws) from the Go module proxy and
# caches it by version outside the repository, like build-stack.sh:
#   karpenter-controller  <- cmd/controller, for the takeover test and the side-by-side bench
#   karpenter-oracle      <- test/karpenter-oracle (our code calling Karpenter's AMI resolution and
#                            launch-template building), for the differential test
#   nodeadm               <- github.com/awslabs/amazon-eks-ami/nodeadm at the version Karpenter
#                            requires: its own config parser checks every AL2023 user data
#   ../examples/v1        <- Karpenter's examples/v1 at this version, the differential corpus
# The oracle's cache key includes a hash of its sources, so editing it rebuilds only it.
# Prints the bin directory on its last line.
set -euo pipefail

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
    go build -trimpath -ldflags "-s -w" -o "$BIN/karpenter-controller.tmp" \
      github.com/aws/karpenter-provider-aws/cmd/controller
    mv "$BIN/karpenter-controller.tmp" "$BIN/karpenter-controller"
  )
  rm -rf "$dir"
}

build_oracle() {
  local hash; hash="$( (cd "$ORACLE_SRC" && cat go.mod go.sum *.go) | sha256sum | cut -c1-12)"
  local out="$BIN/karpenter-oracle-$hash"
  [ -x "$out" ] && { log "oracle ${hash}: cached"; ln -sf "$(basename "$out")" "$BIN/karpenter-oracle"; return; }
  log "oracle ${hash}: building"
  (
    cd "$ORACLE_SRC"
    # The committed go.mod pins the Karpenter version; an override builds against another one.
    if grep -q "github.com/aws/karpenter-provider-aws ${KARPENTER_VERSION}\$" go.mod; then
      go build -trimpath -ldflags "-s -w" -o "$out.tmp" .
    else
      local dir; dir="$(mktemp -d)"; cp go.mod go.sum ./*.go "$dir"/
      (cd "$dir" && apply_replacements && go get "github.com/aws/karpenter-provider-aws@${KARPENTER_VERSION}" >/dev/null \
        && go build -trimpath -ldflags "-s -w" -o "$out.tmp" .)
      rm -rf "$dir"
    fi
  )
  mv "$out.tmp" "$out"
  ln -sf "$(basename "$out")" "$BIN/karpenter-oracle"
  # Builds of earlier sources are of no further use.
  find "$BIN" -name 'karpenter-oracle-*' ! -name "$(basename "$out")" -delete
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
    go build -trimpath -ldflags "-s -w" -o "$BIN/nodeadm.tmp" github.com/awslabs/amazon-eks-ami/nodeadm/cmd/nodeadm
    mv "$BIN/nodeadm.tmp" "$BIN/nodeadm"
  )
  rm -rf "$dir"
}

copy_examples() {
  local examples="$BIN/../examples/v1"
  [ -d "$examples" ] && return
  local src
  src="$(go mod download -json "github.com/aws/karpenter-provider-aws@${KARPENTER_VERSION}" | sed -n 's/.*"Dir": "\(.*\)",/\1/p')"
  mkdir -p "$examples.tmp" && cp "$src"/examples/v1/*.yaml "$examples.tmp"/ && chmod -R u+w "$examples.tmp"
  mv "$examples.tmp" "$examples"
}

start=$(date +%s)
case "${1:-all}" in
  controller) build_controller ;;
  nodeadm) build_nodeadm; copy_examples ;;
  oracle) build_oracle; build_nodeadm; copy_examples ;;
  all) build_controller; build_oracle; build_nodeadm; copy_examples ;;
esac
log "done in $(( $(date +%s) - start ))s"
echo "$BIN"
