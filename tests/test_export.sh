#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# settle trend --influx and --graphite (issue 21) against the real servers of
# Debian's packages (influxdb, graphite-carbon: scripts/setup --test), started
# here on the loopback address with their data in a scratch folder, read back
# with their own interfaces (InfluxDB's /query, carbon's whisper files through
# whisper-fetch) and stopped. Skips (77) when they are not installed.
# Args: the settle program, make_history.
set -u
. "$(dirname "$0")/lib.sh"
settle=$1
make_history=$2
for p in influxd carbon-cache whisper-fetch curl; do
  command -v "$p" >/dev/null 2>&1 || { echo "1..0 # SKIP $p not installed (scripts/setup --test)"; exit 77; }
done
py=$(command -v /usr/bin/python3 || command -v python3)
tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
settle=$(wrapped "$settle" "$tmp")
cd "$tmp" || exit 1

# free ports on the loopback address, asked of the kernel
ports=($("$py" -c '
import socket
ss = [socket.socket() for _ in range(6)]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))'))
[ ${#ports[@]} -eq 6 ] || { echo "not ok - no free ports"; exit 1; }
influx_http=${ports[0]} influx_rpc=${ports[1]}
carbon_line=${ports[2]} carbon_pickle=${ports[3]} carbon_query=${ports[4]}

mkdir -p influx carbon/whisper carbon/log
cat >influx/influxdb.conf <<EOF
reporting-disabled = true
bind-address = "127.0.0.1:$influx_rpc"
[meta]
  dir = "$tmp/influx/meta"
[data]
  dir = "$tmp/influx/data"
  wal-dir = "$tmp/influx/wal"
  query-log-enabled = false
[http]
  bind-address = "127.0.0.1:$influx_http"
  log-enabled = false
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
EOF
influxd -config influx/influxdb.conf >influx/log 2>&1 &
pids+=($!)

cat >carbon/carbon.conf <<EOF
[cache]
STORAGE_DIR = $tmp/carbon/
LOCAL_DATA_DIR = $tmp/carbon/whisper/
CONF_DIR = $tmp/carbon/
LOG_DIR = $tmp/carbon/log/
PID_DIR = $tmp/carbon/
DATABASE = whisper
ENABLE_LOGROTATION = False
MAX_CACHE_SIZE = inf
MAX_UPDATES_PER_SECOND = 5000
MAX_CREATES_PER_MINUTE = inf
LINE_RECEIVER_INTERFACE = 127.0.0.1
LINE_RECEIVER_PORT = $carbon_line
ENABLE_UDP_LISTENER = False
PICKLE_RECEIVER_INTERFACE = 127.0.0.1
PICKLE_RECEIVER_PORT = $carbon_pickle
CACHE_QUERY_INTERFACE = 127.0.0.1
CACHE_QUERY_PORT = $carbon_query
WHISPER_FALLOCATE_CREATE = False
EOF
# one value an hour for five years: the synthetic nights are weeks old
printf '[settle]\npattern = .*\nretentions = 1h:5y\n' >carbon/storage-schemas.conf
carbon-cache --config="$tmp/carbon/carbon.conf" --pidfile="$tmp/carbon/carbon.pid" \
  --nodaemon start >carbon/out 2>&1 &
pids+=($!)

up=1
for _ in $(seq 60); do
  if curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$influx_http/ping" | grep -q 204 &&
     (exec 3<>"/dev/tcp/127.0.0.1/$carbon_line") 2>/dev/null; then up=0; break; fi
  sleep 0.5
done
check $up "influxd and carbon-cache listen on 127.0.0.1: $(tail -2 influx/log carbon/out 2>&1 | tr '\n' ' ')"
[ $up -eq 0 ] || { done_testing; exit 1; }
curl -s -XPOST "http://127.0.0.1:$influx_http/query" --data-urlencode 'q=CREATE DATABASE nightly' >/dev/null

# the medians of device b's nights as trend computes them, "at median" lines
"$make_history" "device=a" "device=b step=0.25 at=6 seed=2" >h.jsonl
"$settle" trend --format json h.jsonl >trend.json
medians() {
  grep "\"device\":\"$1\"" trend.json | grep -o '"at":[0-9]*,"n":[0-9]*,"median":[0-9.]*' |
    sed 's/"at":\([0-9]*\),"n":[0-9]*,"median":/\1 /'
}
[ "$(medians b | wc -l)" -eq 8 ]
check $? "trend gives eight nights of device b"

# InfluxDB: POST line protocol, read back with InfluxQL over /query
expect_exit "trend --influx: exit 0" 0 "$settle" trend --format json \
  --influx "http://127.0.0.1:$influx_http/write?db=nightly" h.jsonl
grep -q "16 points written" "$tmp/err"
check $? "says 16 points written: $(cat "$tmp/err")"
q() { curl -s -G "http://127.0.0.1:$influx_http/query" --data-urlencode db=nightly --data-urlencode "q=$1"; }
q "SELECT night, median FROM load_time WHERE test='contacts' AND device='b'" >b.influx
got=$(grep -o '\["[^"]*",[0-9]*,[0-9.]*\]' b.influx | sed 's/\["[^"]*",\([0-9]*\),\([0-9.]*\)\]/\1 \2/')
[ "$got" = "$(medians b)" ]
check $? "InfluxDB holds device b's eight medians along night: $(head -c 300 b.influx)"
q 'SHOW TAG KEYS FROM load_time' | grep -q '"values":\[\["device"\],\["test"\]\]'
check $? "tags test and device"
q 'SELECT count(median) FROM load_time GROUP BY device' | grep -o '"values":\[\["[^"]*",8\]\]' |
  wc -l | grep -qx 2
check $? "eight points a device"
q 'SHOW FIELD KEYS FROM load_time' | grep -q '\["count","integer"\]'
check $? "count is an integer field"
# nights that are dates are placed at 00:00 UTC of the date
"$make_history" "device=c date=1 seed=5" >d.jsonl
expect_exit "dates to InfluxDB" 0 "$settle" trend -q --influx "http://127.0.0.1:$influx_http/write?db=nightly" d.jsonl
q "SELECT median FROM load_time WHERE device='c'" | grep -o '"2026-11-0[0-9]T[0-9:]*Z"' | head -1 >first
[ "$(cat first)" = '"2026-11-01T00:00:00Z"' ]
check $? "a date night is at 00:00 UTC: $(cat first)"
# writing twice overwrites the same points
"$settle" trend -q --influx "http://127.0.0.1:$influx_http/write?db=nightly" h.jsonl >again.out
q "SELECT count(median) FROM load_time WHERE device='b'" | grep -q '"values":\[\["[^"]*",8\]\]'
check $? "pushed twice, still eight points"
expect_exit "a database that does not exist: exit 4" 4 "$settle" trend -q \
  --influx "http://127.0.0.1:$influx_http/write?db=nope" h.jsonl
one_line_naming "a missing database" "HTTP 404"

# Graphite: carbon's plaintext protocol, read back from its whisper files
expect_exit "trend --graphite: exit 0" 0 "$settle" trend --format json \
  --graphite "127.0.0.1:$carbon_line" h.jsonl
grep -q "64 values written" "$tmp/err"
check $? "says 64 values written: $(cat "$tmp/err")"
w=carbon/whisper/settle/contacts/b/load_time
for _ in $(seq 60); do
  [ -f $w/median.wsp ] &&
    [ "$(whisper-fetch --from=1789000000 --until=1792000000 $w/median.wsp 2>/dev/null | grep -vc None)" -eq 8 ] && break
  sleep 0.5
done
got=$(whisper-fetch --from=1789000000 --until=1792000000 $w/median.wsp 2>&1 | grep -v None | cut -f2)
[ "$got" = "$(medians b | cut -d' ' -f2)" ]
check $? "carbon stored device b's eight medians: $(echo $got)"
ls carbon/whisper/settle/contacts/a/load_time/ | tr '\n' ' ' | grep -qx 'count.wsp max.wsp median.wsp min.wsp '
check $? "median, min, max and count of device a: $(ls carbon/whisper/settle/contacts/a/load_time/ | tr '\n' ' ')"
expect_exit "--graphite without a port: exit 64" 64 "$settle" trend -q --graphite 127.0.0.1 h.jsonl
one_line_naming "graphite usage" "--graphite"
expect_exit "--influx not http: exit 64" 64 "$settle" trend -q --influx "https://127.0.0.1:$influx_http" h.jsonl
one_line_naming "influx usage" "--influx"

# servers gone: an export that fails is exit 4 with one line
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
pids=()
expect_exit "InfluxDB stopped: exit 4" 4 "$settle" trend -q --influx "http://127.0.0.1:$influx_http" h.jsonl
one_line_naming "influx down" "cannot connect"
expect_exit "carbon stopped: exit 4" 4 "$settle" trend -q --graphite "127.0.0.1:$carbon_line" h.jsonl
one_line_naming "carbon down" "cannot connect"

echo "# $pass passed, $fail failed"
done_testing
