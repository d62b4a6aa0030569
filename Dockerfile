# wallet-node container image.
#
#   docker build -t wallet-node .
#   docker run -d --name wallet -p 8080:8080 -v wallet-data:/data wallet-node
#   docker exec wallet node-cli info
#
# Two stages: the build stage compiles better-sqlite3 and the TypeScript; the runtime stage holds only
# production dependencies, the compiled JavaScript, Tor and tini, and runs as the unprivileged `node` user.

# ---------------------------------------------------------------------------------------------------------
FROM node:22-bookworm-slim AS build

# Toolchain for native modules (better-sqlite3 is compiled from source against the image's own Node headers,
# so nothing is downloaded at build time besides the npm packages themselves).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

ENV npm_config_build_from_source=true \
    npm_config_nodedir=/usr/local \
    npm_config_fund=false \
    npm_config_audit=false \
    npm_config_update_notifier=false

WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci

COPY . .
RUN npm run build \
 && npm prune --omit=dev

# ---------------------------------------------------------------------------------------------------------
FROM node:22-bookworm-slim AS runtime

# tor: the node's onion service and the SOCKS5 proxy it reaches .onion peers through.
# tini: PID 1 that forwards signals and reaps children (tor runs beside the node).
RUN apt-get update \
 && apt-get install -y --no-install-recommends tor tini \
 && rm -rf /var/lib/apt/lists/*

ENV NODE_ENV=production \
    NODE_DATA_DIR=/data \
    NODE_BIND=0.0.0.0 \
    NODE_PORT=8080 \
    NODE_TOR_ENABLED=true

WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/bin ./bin
COPY docker/entrypoint.sh docker/write-onion-keys.js ./docker/

# `node-cli` and `wallet-node` on PATH, so `docker exec <container> node-cli info` works; node-cli finds the
# admin key in $NODE_DATA_DIR/cli.json.
RUN chmod 0755 bin/node-cli.js bin/wallet-node.js docker/entrypoint.sh \
 && ln -s /app/bin/node-cli.js /usr/local/bin/node-cli \
 && ln -s /app/bin/wallet-node.js /usr/local/bin/wallet-node \
 && mkdir -p /data \
 && chown node:node /data \
 && chmod 0700 /data

USER node
VOLUME ["/data"]
EXPOSE 8080

# /healthz answers 200 without auth once the node serves.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.NODE_PORT||8080)+'/healthz',{signal:AbortSignal.timeout(4000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--", "/app/docker/entrypoint.sh"]
