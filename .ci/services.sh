#!/usr/bin/env bash
# Ensures the servers the tests talk to are up on loopback, starting any that is down with the same command
# the machine uses (node-svc), installing Debian packages the tests start themselves. Fails loudly.
set -uo pipefail

fail() { echo "FATAL: $*" >&2; exit 1; }
wait_for() { # name, check command, tries
  local name=$1 check=$2 tries=${3:-60}
  for _ in $(seq "$tries"); do eval "$check" >/dev/null 2>&1 && { echo "ok: $name"; return 0; }; sleep 0.5; done
  fail "$name did not come up ($check)"
}
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

apt_updated=0
need_pkg() { # install Debian packages if a binary is missing
  local bin=$1; shift
  command -v "$bin" >/dev/null 2>&1 && return 0
  if [ $apt_updated = 0 ]; then apt-get update -qq || fail "apt-get update failed"; apt_updated=1; fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null || fail "could not install $*"
}

# Redis 6379 (also the binary for the Cluster and Sentinel tests, which start their own processes)
need_pkg redis-server redis-server redis-tools
if ! redis-cli -p 6379 ping >/dev/null 2>&1; then
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no --dir /var/lib/redis --logfile /var/log/redis/ci.log
fi
wait_for redis "redis-cli -p 6379 ping"

# PostgreSQL 5432, database test
need_pkg psql postgresql
if ! port_open 5432; then pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true; fi
wait_for postgresql "psql -h 127.0.0.1 -U postgres -d postgres -c 'select 1'"
psql -h 127.0.0.1 -U postgres -d postgres -tc "select 1 from pg_database where datname='test'" | grep -q 1 \
  || psql -h 127.0.0.1 -U postgres -d postgres -c 'create database test' >/dev/null

# MariaDB 3306, database test (the failover chaos tests also start their own PostgreSQL and MariaDB from these
# packages' binaries, on 7620–7623, to kill -9 them)
need_pkg mariadbd mariadb-server
if ! port_open 3306; then start-stop-daemon --start --oknodo --background --exec /usr/sbin/mariadbd; fi
wait_for mariadb "mariadb -h127.0.0.1 -uroot -e 'select 1'"
mariadb -h127.0.0.1 -uroot -e 'create database if not exists test'

# RabbitMQ 5672, Mosquitto 1883, NATS 4222 (JetStream)
need_pkg rabbitmq-server rabbitmq-server
if ! port_open 5672; then rabbitmq-server -detached; fi
wait_for rabbitmq "port_open 5672" 120
need_pkg mosquitto mosquitto
if ! port_open 1883; then mosquitto -d -c /etc/mosquitto/mosquitto.conf; fi
wait_for mosquitto "port_open 1883"
need_pkg nats-server nats-server
if ! port_open 4222; then
  mkdir -p /var/lib/nats-server
  start-stop-daemon --start --oknodo --background --exec /usr/sbin/nats-server -- -a 127.0.0.1 -p 4222 -js -sd /var/lib/nats-server -l /var/log/nats-server.log
fi
wait_for nats "port_open 4222"

# Servers the tests start themselves on their own ports.
need_pkg beanstalkd beanstalkd
# Third-party beanstalkd clients that test/beanstalkd/third-party-clients.test.ts drives as their users
# install them: PHP's pheanstalk and Ruby's beaneater (libraries: checked by file, not binary).
need_pkg php php-cli php-pda-pheanstalk
[ -f /usr/share/php/Pheanstalk/autoload.php ] || need_pkg /no-such-binary php-pda-pheanstalk
need_pkg ruby ruby ruby-beaneater
ruby -e 'require "beaneater"' 2>/dev/null || need_pkg /no-such-binary ruby-beaneater
# ActiveMQ Classic (Debian's package, Java 17): test/delivery/stomp-sink.test.ts starts its own broker from
# /usr/share/activemq/bin/activemq.jar on 127.0.0.1:7261 (STOMP) and 7262 (OpenWire); nothing to start here.
need_pkg activemq activemq
[ -f /usr/share/activemq/bin/activemq.jar ] || fail "activemq is installed but /usr/share/activemq/bin/activemq.jar is missing"
command -v java >/dev/null 2>&1 || fail "java is missing (the activemq package should have pulled in a JRE)"
# libfaketime: the chaos suite steps the service host's wall clock (test/chaos/clock-step.test.ts)
need_pkg faketime faketime
# Prometheus: promtool unit-tests the alert rules (test/house/alerts.test.ts); the server itself scrapes two
# instances in test/server/instances-metrics.test.ts (started there on a free loopback port, not here).
need_pkg promtool prometheus
need_pkg prometheus prometheus
# chromium: the web console's browser tests (test/console/console.test.ts, playwright-core drives /usr/bin/chromium)
need_pkg chromium chromium
# Client tests: PHP with curl (test/clients/php-client.test.ts), Debian's gRPC for Python in /usr/bin/python3
# (test/grpc/python-grpc.test.ts; a pyenv python3 on PATH does not see these modules).
need_pkg php php-cli php-curl
if ! php -m 2>/dev/null | grep -qx curl || ! /usr/bin/python3 -c 'import grpc, grpc_tools' >/dev/null 2>&1; then
  [ $apt_updated = 0 ] && { apt-get update -qq || fail "apt-get update failed"; apt_updated=1; }
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends php-curl python3-grpcio python3-grpc-tools >/dev/null \
    || fail "could not install php-curl python3-grpcio python3-grpc-tools"
fi
echo "services ready"
