# syntax=docker/dockerfile:1
# Two stages: the build installs every dependency (TypeScript, esbuild and the IDE's packages are
# dev dependencies) and produces dist/ and public/; the runtime installs the production ones only
# and runs as the unprivileged `node` user. Node is the project's pinned version (package.json's
# devDependency `node`).
ARG NODE_VERSION=24.21.0

FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# `npm install` runs the prepare script (web/build.mjs: the IDE and API docs bundles into public/;
# then the TypeScript into dist/): what both read is copied before it.
COPY package.json package-lock.json ./
COPY web ./web
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY graphql ./graphql
COPY rest ./rest
COPY bench ./bench
# `npm ci` refuses lockfiles made on these machines (optional binaries of other platforms).
RUN npm install --no-audit --no-fund
COPY . .
RUN npm run build:ts

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    PORT=4000 \
    HOST=0.0.0.0 \
    DATA_DIR=/app/data
WORKDIR /app
COPY package.json package-lock.json ./
# No scripts: prepare (the bundler) is a build step; argon2 loads the prebuilt binary it ships.
RUN npm install --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY --from=build /app/public ./public
# Read at run time: the REST door's GraphQL documents; the IBGE county list (loaded by the first start
# on an empty database, and by `counties:import`); the trace's SQL functions (applied by migrations).
COPY --from=build /app/rest/operations ./rest/operations
COPY --from=build /app/docs/data ./docs/data
COPY --from=build /app/src/trace/sql ./src/trace/sql
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 4000
VOLUME ["/app/data"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=5 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 4000) + '/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/src/main.js"]
