#!/usr/bin/env bash
# Starts the local PostgreSQL and Redis that the clustered-mode tests use, when they are installed
# but stopped (the machine's services; the embedded default needs neither). Prints what it did.
set -uo pipefail

if command -v pg_isready >/dev/null 2>&1; then
  if ! pg_isready -h 127.0.0.1 -p 5432 -q; then
    echo "ensure-services: starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
    for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 0.5; done
  fi
else
  echo "ensure-services: PostgreSQL is not installed here; its tests will say how to provide it"
fi

if command -v redis-cli >/dev/null 2>&1; then
  if ! redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; then
    echo "ensure-services: starting Redis"
    mkdir -p /var/lib/redis /var/log/redis 2>/dev/null || true
    redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
      --dir /var/lib/redis --logfile /var/log/redis/ci.log || true
    for _ in $(seq 1 30); do redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1 && break; sleep 0.5; done
  fi
else
  echo "ensure-services: Redis is not installed here; its tests will say how to provide it"
fi
exit 0
