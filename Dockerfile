# syntax=docker/dockerfile:1
#
# One image for every Flex process in distributed mode. The process is chosen by the command:
#   node apps/flex/dist/gateway-main.js    (the default CMD: the gateway, with the policy what-if)
#   node services/registry/dist/main.js
#   node services/planner/dist/main.js
#   node services/validator/dist/main.js
#   node services/executor/dist/main.js
#   node agents/reference/dist/main.js
# docker-compose.yml and deploy/k8s/ set the command per service; see deploy/README.md.
#
# Build: docker build -t flex:latest .

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------------------------
# manifests: only the package manifests and the lockfile, so the dependency layers below are
# rebuilt when dependencies change, not on every source edit. Every workspace (libs/*,
# services/*, agents/*, apps/*) is picked up, including ones added later.
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS manifests
WORKDIR /src
COPY . .
RUN set -eu; \
    mkdir -p /manifests; \
    cp package.json package-lock.json /manifests/; \
    for manifest in libs/*/package.json services/*/package.json agents/*/package.json apps/*/package.json; do \
      [ -f "$manifest" ] || continue; \
      mkdir -p "/manifests/$(dirname "$manifest")"; \
      cp "$manifest" "/manifests/$manifest"; \
    done

# ---------------------------------------------------------------------------------------------
# deps: every dependency, dev tools included (nx, swc), exactly as locked.
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund

# ---------------------------------------------------------------------------------------------
# build: compile every workspace to <pkg>/dist, then collect what the runtime needs: each
# workspace minus its sources, specs and local node_modules.
# ---------------------------------------------------------------------------------------------
FROM deps AS build
ENV NX_DAEMON=false \
    NX_NO_CLOUD=true
COPY . .
RUN npm run build
RUN set -eu; \
    mkdir -p /out; \
    for pkg in libs/* services/* agents/* apps/*; do \
      [ -f "$pkg/package.json" ] || continue; \
      mkdir -p "/out/$pkg"; \
      for entry in "$pkg"/* "$pkg"/.[!.]*; do \
        [ -e "$entry" ] || continue; \
        case "$(basename "$entry")" in \
          src|node_modules|test|*.tsbuildinfo|tsconfig*.json|jest.config.*|.swcrc) continue ;; \
        esac; \
        cp -a "$entry" "/out/$pkg/"; \
      done; \
    done; \
    find /out -name '*.spec.js' -delete -o -name '*.spec.js.map' -delete

# ---------------------------------------------------------------------------------------------
# prod-deps: production dependencies only (no nx, swc, jest, type packages).
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS prod-deps
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN --mount=type=cache,target=/root/.npm \
    npm ci --omit=dev --no-audit --no-fund

# ---------------------------------------------------------------------------------------------
# runtime: slim, non-root, production mode. Application files stay owned by root (read-only for
# the process); only the embedded-mode data directory is writable.
# ---------------------------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=3000
WORKDIR /app
COPY --from=prod-deps /app/ ./
COPY --from=build /out/ ./
RUN mkdir -p /app/.flex && chown 1000:1000 /app/.flex
# uid/gid 1000 is the `node` user of the official image; numeric so that Kubernetes'
# runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "apps/flex/dist/gateway-main.js"]
