# tokenflood's container image: Node 20 slim, the built package and its production dependencies only (docs/distributed.md).
# Build: docker build -t tokenflood:0.1.0 .   Run: docker run --rm tokenflood:0.1.0 run --base-url http://host:8000/v1

FROM node:20-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
# No scripts yet: `prepare` builds, and scripts/ and src/ are copied below.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# Compile, copy ECharts' bundle into dist/vendor and bundle the CLI into dist/bin, then drop the dev dependencies (typescript, vitest, echarts, ...).
RUN npm run build && npm prune --omit=dev

FROM node:20-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./package.json
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
COPY LICENSE ./LICENSE
# Tokenizer tables, the prompt corpus and eval sets, read at run time next to dist/.
COPY data ./data
# Results go to a mounted volume (/results in the generated manifests); the image itself stays read-only.
USER node
ENTRYPOINT ["node", "/app/dist/bin/tokenflood.js"]
CMD ["--help"]
