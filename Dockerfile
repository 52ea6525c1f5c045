# Agent Service: one image for a single instance or every instance of a cluster (compose.yaml).
# Build: the whole toolchain, then dist/ (server bundle) and web/dist/ (the UI).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts yet: `prepare` builds from sources that are copied next.
RUN npm ci --ignore-scripts
COPY . .
RUN node scripts/build.mjs

# Runtime: production dependencies only, the built files, and the sources the launcher checks
# dist/ against (bin/agent-service.mjs runs dist/main.js when it is newer than src/).
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    AGENT_SERVICE_HOST=0.0.0.0 \
    AGENT_SERVICE_PORT=9527
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would rebuild what the build stage already built.
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/bin ./bin
COPY --from=build /app/src ./src
COPY --from=build /app/web ./web
COPY --from=build /app/dist ./dist
# The data root (config, agents, skills, workspaces, the embedded database): a volume, owned by the
# unprivileged user the server runs as.
RUN mkdir -p /var/lib/agent-service && chown node:node /var/lib/agent-service
VOLUME ["/var/lib/agent-service"]
USER node
EXPOSE 9527
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:9527/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "--max-semi-space-size=8", "bin/agent-service.mjs"]
CMD ["serve", "--config", "/var/lib/agent-service/config.yaml", "--data", "/var/lib/agent-service/data"]
