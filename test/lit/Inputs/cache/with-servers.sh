#!/bin/sh
# with-servers.sh DIR COMMAND...: runs COMMAND with servers of its own
# (server.sh): a redis-server, an nginx with WebDAV's PUT and a silent one,
# their addresses in OL_REDIS_URL, OL_HTTP_URL and OL_SILENT_ADDR, their files
# in DIR/redis, DIR/nginx and DIR/silent (OL_SERVERS=DIR; COMMAND may stop
# one with `server.sh stop $OL_SERVERS/redis`).  Every server is stopped when
# COMMAND ends, whatever its status, and by the servers' guards if this
# script itself is killed.  Exits with COMMAND's status.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
OL_SERVERS=$1
shift
stop_all() {
	for server in redis nginx silent; do
		"$here/server.sh" stop "$OL_SERVERS/$server"
	done
}
trap stop_all EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
OL_REDIS_URL=$("$here/server.sh" start redis "$OL_SERVERS/redis" $$)
OL_HTTP_URL=$("$here/server.sh" start nginx "$OL_SERVERS/nginx" $$)
OL_SILENT_ADDR=$("$here/server.sh" start silent "$OL_SERVERS/silent" $$)
export OL_SERVERS OL_REDIS_URL OL_HTTP_URL OL_SILENT_ADDR
status=0
"$@" || status=$?
exit $status
