# nodesmith's container image: `nodesmith run` (controller), `nodesmith webhooks`, `nodesmith extender`.
# Multi-stage: the build stage compiles TypeScript with every dependency, then prunes to production ones;
# the runtime stage gets only dist/, the production node_modules and package.json, and runs as a non-root
# numeric user (65532, as the manifests' runAsUser) so runAsNonRoot can verify it without /etc/passwd.
#
#   docker build -t nodesmith:0.1.0 .        # the tag is package.json's version; the chart uses it
#   test/image/build-image.sh                # the same Dockerfile, built and run here with buildah
#
# NODE_IMAGE: a Debian-based Node.js image with npm. Tested with Node.js 22 (default, the minimum) and 24.
ARG NODE_IMAGE=node:22-bookworm-slim

FROM ${NODE_IMAGE} AS build
# Behind a TLS-intercepting proxy, pass its CA for npm (build argument plus a bind mount); unset otherwise.
# Build arguments stay out of the runtime stage.
ARG NODE_EXTRA_CA_CERTS
WORKDIR /src
# Dependencies first, so that a source change reuses this layer; `npm ci` installs exactly the lock file (.ci/run
# checks that it is complete).
COPY package.json package-lock.json ./
RUN npm ci --no-fund --no-audit --loglevel=error --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY domain ./domain
COPY cli ./cli
COPY extender ./extender
COPY webhooks ./webhooks
COPY provisioner ./provisioner
COPY build ./build
RUN npm run build \
 && npm prune --omit=dev --no-fund --no-audit --loglevel=error \
 && node dist/cli/main.js --version

FROM ${NODE_IMAGE}
# build_info{commit}: the script passes `git rev-parse HEAD`.
ARG COMMIT=""
ENV NODE_ENV=production NODESMITH_COMMIT=${COMMIT}
# Memory: V8 grows its young generation to 16 MiB per semi-space and glibc keeps one malloc arena per thread;
# a 4 MiB semi-space and two arenas took a 1,000-pod burst's resident peak from 232 to 196 MiB, with planning
# throughput unchanged within noise (DECISIONS.md, "Runtime memory settings"). Tests run their child nodesmith
# with these same lines (test/support/image-env.ts).
ENV NODE_OPTIONS=--max-semi-space-size=4 MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
USER 65532:65532
# /healthz and /readyz (and /metrics) of `nodesmith run`; webhooks and extender serve theirs on their own ports.
EXPOSE 8080 8444 9443
# --heap-growing-percent=50: after each full collection V8 lets the old generation grow to 1.5× what survived,
# instead of up to 4× when collection is fast. During a 1,000-pod burst the garbage promoted out of the small young
# generation otherwise piles up to 200 MiB of heap before a full collection; the peak went from 222–364 MiB to
# 184–192 MiB, with the burst no slower (DECISIONS.md, "Runtime memory settings").
# --optimize-for-size: V8's heuristics favour memory over speed (smaller heap reserves, earlier collection): the
# burst's peak went from 180–183 to 165–176 MiB for about 10% more planner CPU (still ~7,000 diverse pods/s) and an
# unchanged extender p99. NODE_OPTIONS accepts neither flag, hence here; the chart sets args only, so it keeps them.
ENTRYPOINT ["node", "--heap-growing-percent=50", "--optimize-for-size", "/app/dist/cli/main.js"]
CMD ["--help"]
