# harpoon - unattended NFT trading daemon for the OpenSea API v2.
#
#   docker build -t harpoon .
#   docker run --rm --init harpoon                       # the demo (CMD)
#   docker run --rm --init harpoon --help
#   docker run --rm --init -v "$PWD/harpoon.yaml:/app/harpoon.yaml:ro" -e HARPOON_CONFIG=/app/harpoon.yaml \
#     -e OPENSEA_API_KEY -v harpoon-data:/app/data harpoon config check
#
# Secrets are passed as environment variables (or a keystore mounted read-only); none is baked in.
# --init gives the process a real PID 1 that forwards signals (first SIGTERM = clean stop).
FROM node:20-bookworm-slim AS deps

# better-sqlite3 (the daemon's store) is a native addon: compiled here from its npm sources with
# Debian's toolchain (never a downloaded prebuilt binary); the toolchain stays in this stage.
RUN apt-get update \
  && apt-get install -y --no-install-recommends python3 make g++ \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: no install script runs. tsx's esbuild and anvil take their native binaries from
# the platform packages in optionalDependencies (@esbuild/linux-*, @foundry-rs/anvil-linux-*), so
# both still work (checked: `npm ci --ignore-scripts`, then tsx, esbuild and `anvil --version`).
# Then better-sqlite3 alone is built from source.
RUN npm ci --ignore-scripts --omit=dev \
  && npm_config_build_from_source=true npm rebuild better-sqlite3 \
  && npm cache clean --force

FROM node:20-bookworm-slim

ENV NODE_ENV=production \
    NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

WORKDIR /app

# Dependencies from the deps stage: runtime dependencies only (--omit=dev): harpoon runs its
# TypeScript through tsx, a regular dependency, with no build step; the test tools stay out.
COPY --from=deps /app/node_modules ./node_modules

# Sources (filtered by .dockerignore), owned by root and read-only for the runtime user.
COPY . .

# Writable state for the unprivileged user: SQLite store and the compiled-contract cache.
RUN mkdir -p /app/data /app/.cache && chown node:node /app/data /app/.cache

USER node

ENTRYPOINT ["node", "bin/harpoon.mjs"]
CMD ["demo"]
