# The service's container image. The base image is a build argument: any image with Node 20 to 26
# and npm on its PATH (a node:*-slim image from a registry, or one made on the machine as
# .ci/container does). Every RUN is in exec form, so the base needs no shell.
#   podman build --format docker --build-arg BASE_IMAGE=<image> -t ledger-query-service .
# (--format docker keeps the HEALTHCHECK, which the OCI image format has no field for.)
ARG BASE_IMAGE=node:20-bookworm-slim

# TypeScript compiled with the development dependencies; only dist/src goes on.
FROM ${BASE_IMAGE} AS build
WORKDIR /build
COPY package.json package-lock.json ./
RUN ["npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]
COPY tsconfig.json ./
COPY src ./src
COPY tools ./tools
COPY test ./test
RUN ["node", "node_modules/typescript/bin/tsc", "-p", "."]
# the state folder of the final stage, made here because the final stage may have no shell
RUN ["node", "-e", "require('node:fs').mkdirSync('state')"]

# The production dependencies alone (no dependency builds native code or runs an install script).
FROM ${BASE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN ["npm", "ci", "--omit=dev", "--ignore-scripts", "--no-audit", "--no-fund", "--loglevel=error"]

FROM ${BASE_IMAGE}
WORKDIR /app
COPY package.json ./
COPY api ./api
COPY src/db/migrations ./src/db/migrations
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /build/dist/src ./dist/src
# The embedded database (PGlite) keeps its data and its lock file (data.lock) in /var/lib/lqs, a
# volume: with a read-only root filesystem that is the only place it can write. LQS_DB_DATADIR=memory
# needs no volume; with db.url (PostgreSQL) the folder is unused.
COPY --from=build --chown=1000:1000 /build/state /var/lib/lqs
ENV NODE_ENV=production \
    LQS_HOST=0.0.0.0 \
    LQS_DB_DATADIR=/var/lib/lqs/data
VOLUME ["/var/lib/lqs"]
# A numeric user, so that the image needs no passwd entry and Kubernetes' runAsNonRoot can verify it.
USER 1000:1000
EXPOSE 5551
# Liveness on the port of PORT/LQS_PORT (5551 by default); the image needs neither curl nor a shell.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "require('node:http').get({host:'127.0.0.1',port:process.env.LQS_PORT||process.env.PORT||5551,path:'/health/liveness',timeout:4000},r=>process.exit(r.statusCode===200?0:1)).on('error',()=>process.exit(1)).on('timeout',()=>process.exit(1))"]
# node is PID 1 and handles SIGTERM itself (finishes its requests, closes its pools, exits 0).
ENTRYPOINT ["node", "dist/src/main.js"]
CMD ["serve"]
