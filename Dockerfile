# syntax=docker/dockerfile:1
# docs-agent-slack on Node 24 LTS. Build: docker build -t docs-agent-slack .
# Run:   docker run --rm -p 3000:3000 --env-file .env docs-agent-slack

# Build stage: every dependency (TypeScript included), then the sources compiled to dist/.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Runtime stage: system packages, then production dependencies, then the compiled code, so that a
# code change rebuilds only the last layer and a dependency change only the last two.
FROM node:24-bookworm-slim AS runtime
# Fonts for the digest chart's labels (the slim image has none; @napi-rs/canvas reads /usr/share/fonts).
RUN apt-get update \
  && apt-get install -y --no-install-recommends fonts-dejavu-core \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production PORT=3000
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The files stay root-owned (read-only to the bot); the bot runs as the image's unprivileged node user.
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# SIGTERM from `docker stop` drains (SHUTDOWN_DRAIN_MS: 5 s in HTTP mode, /healthz 503 while requests are
# still taken), then stops and exits 0 within 9 s more: run with --stop-timeout 15 (Docker waits 10 s). No .env is read in the image:
# pass the settings with --env-file or -e (or your orchestrator's secrets).
CMD ["node", "dist/main.js"]
