#!/bin/sh
# server.sh: the servers of the remote storage tests, each of its own, on
# 127.0.0.1 and a free port, its files in DIR, as the invoking user.
#
#   server.sh start redis|nginx|silent DIR WATCH_PID
#       starts one, waits until it answers, prints its address (also in
#       DIR/url): redis://127.0.0.1:PORT, http://127.0.0.1:PORT/cache, or
#       127.0.0.1:PORT for silent (accepts connections, never answers a byte:
#       a remote that hangs).  Whatever happens to the test, the server is
#       stopped once process WATCH_PID is gone (a guard process watches).
#   server.sh stop DIR
#       stops it (SIGTERM, SIGKILL after 5 s) and its guard; returns once
#       they are gone.  Nothing to stop is fine.
#
# redis-server: nothing saved to disk.  nginx (Debian's has the WebDAV
# module built in): DIR/root served with PUT, one process (no master, no
# workers, no daemon), configuration, logs and temp files in DIR; under
# /small/ it takes no body over 1 KiB.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

# Running, and not a zombie: PID 1 here may not reap what it inherits.
alive() {
	[ -r "/proc/$1/stat" ] && [ "$(sed -n 's/.*) \(.\).*/\1/p' "/proc/$1/stat")" != Z ]
}

stop() {
	for file in "$1/pid" "$1/guard.pid"; do
		[ -f "$file" ] || continue
		pid=$(cat "$file")
		rm -f "$file"
		kill "$pid" 2>/dev/null || continue
		n=0
		while alive "$pid"; do
			n=$((n + 1))
			[ $n -eq 50 ] && kill -9 "$pid" 2>/dev/null
			sleep 0.1
		done
	done
}

# The paths are quoted: DIR may have a space in it (the build tree's path).
nginx_config() {
	cat <<CONF
daemon off;
master_process off;
pid "$dir/nginx.pid";
error_log "$dir/log";
events { worker_connections 64; }
http {
	access_log "$dir/access.log";
	client_body_temp_path "$dir/tmp/body";
	proxy_temp_path "$dir/tmp/proxy";
	fastcgi_temp_path "$dir/tmp/fastcgi";
	uwsgi_temp_path "$dir/tmp/uwsgi";
	scgi_temp_path "$dir/tmp/scgi";
	server {
		listen 127.0.0.1:$port;
		root "$dir/root";
		client_max_body_size 0;
		location / {
			dav_methods PUT DELETE;
			create_full_put_path on;
			dav_access user:rw;
		}
		# A store that takes nothing over 1 KiB (HTTP 413).
		location /small/ {
			client_max_body_size 1k;
			dav_methods PUT DELETE;
			create_full_put_path on;
			dav_access user:rw;
		}
	}
}
CONF
}

# Starts the server in the background; its stdio goes to files, so that it
# holds none of the test's pipes open.
launch() {
	case $kind in
	redis)
		redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save '' --appendonly no \
			--daemonize no --logfile "$dir/log" ;;
	nginx)
		mkdir -p "$dir/root/cache" "$dir/tmp"
		nginx_config > "$dir/nginx.conf"
		/usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/log" ;;
	silent)
		exec python3 "$here/silent-server.py" "$port" ;;
	esac </dev/null >>"$dir/log" 2>&1 &
	echo $! > "$dir/pid"
}

address() {
	case $kind in
	redis) echo "redis://127.0.0.1:$port" ;;
	nginx) echo "http://127.0.0.1:$port/cache" ;;
	silent) echo "127.0.0.1:$port" ;;
	esac
}

answers() {
	case $kind in
	redis) redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG ;;
	*) python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 1).close()" 2>/dev/null ;;
	esac
}

guard() {
	server=$(cat "$dir/pid")
	(
		while alive "$watch" && alive "$server"; do
			sleep 0.2
		done
		kill "$server" 2>/dev/null || true
	) </dev/null >/dev/null 2>&1 &
	echo $! > "$dir/guard.pid"
}

start() {
	for try in 1 2 3 4 5; do
		port=$(python3 "$here/free-port.py")
		launch
		guard
		n=0
		while [ $n -lt 100 ] && alive "$(cat "$dir/pid")"; do
			if answers; then
				address > "$dir/url"
				cat "$dir/url"
				return 0
			fi
			sleep 0.1
			n=$((n + 1))
		done
		stop "$dir"     # gone (the port was taken meanwhile) or mute: again
	done
	echo "server.sh: $kind did not start; its log:" >&2
	cat "$dir/log" >&2 || true
	return 1
}

case ${1:-} in
start)
	kind=$2 watch=$4
	mkdir -p "$3"
	dir=$(cd "$3" && pwd)
	case $kind in redis | nginx | silent) ;; *) echo "server.sh: unknown server '$kind'" >&2; exit 2 ;; esac
	start ;;
stop)
	stop "$2" ;;
*)
	echo "usage: server.sh start redis|nginx|silent DIR WATCH_PID | server.sh stop DIR" >&2
	exit 2 ;;
esac
