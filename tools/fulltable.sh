#!/usr/bin/env bash
# Issue 25 §3, "Full tables live": a whole RIB, every path signed by `hopsig bgpsec
# sign-mrt`, fed over TCP by `hopsig bgpsec feed` into a live `hopsig speaker` (lazy and
# strict, one and two downstream BGPsec neighbours watched by feed), and the same routes
# unsigned into gobgpd. Per run: time until every route was forwarded to every
# downstream neighbour, until the speaker's status said all validated, and the
# router's peak memory (VmHWM) per route. docs/BENCHMARKS.md records the results.
#
# Usage: tools/fulltable.sh [RIB] [OUT]
#   RIB  default ../shared/data/mrt/ris-bview.20020722.2337.gz (RIS rrc00, 2002)
#   OUT  default target/fulltable (signed MRT, keys, configs, reports, summary.md)
# Env: HOPSIG (default target/release/hopsig), FEED_AS (the RIB peer whose routes are
#   fed; default: the busiest, found by the script), LIMIT (routes; default all),
#   RUNS ("lazy:1 lazy:2 strict:1 strict:2 gobgpd:1" by default).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RIB=${1:-$ROOT/../shared/data/mrt/ris-bview.20020722.2337.gz}
OUT=${2:-$ROOT/target/fulltable}
HOPSIG=${HOPSIG:-$ROOT/target/release/hopsig}
RUNS=${RUNS:-"lazy:1 lazy:2 strict:1 strict:2 gobgpd:1"}
ROUTER_AS=12654 # RIS's AS: the Target AS of the newest signatures sign-mrt writes
mkdir -p "$OUT"
cd "$OUT"

if [ ! -f signed.mrt ]; then
  "$HOPSIG" bgpsec sign-mrt "$RIB" signed.mrt --suite 1 --keys keys --target-as $ROUTER_AS --force
fi
# The busiest peer of the RIB: its routes go over one session (RFC 8205 §5.2 check 2).
FEED_AS=${FEED_AS:-$(python3 - <<'EOF'
import struct, collections
c = collections.Counter()
with open("signed.mrt", "rb") as f:
    d = f.read()
i = 0
while i < len(d):
    ln = struct.unpack(">I", d[i + 8:i + 12])[0]
    c[struct.unpack(">I", d[i + 12:i + 16])[0]] += 1
    i += 12 + ln
print(c.most_common(1)[0][0])
EOF
)}
[ -f router.key ] || "$HOPSIG" bgpsec keygen --asn $ROUTER_AS --suite 1 --out router.key >/dev/null
LIMIT_ARG=()
[ -n "${LIMIT:-}" ] && LIMIT_ARG=(--limit "$LIMIT")

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

speaker_config() { # MODE DOWNSTREAM PORT
  cat <<EOF
local_as = $ROUTER_AS
router_id = "192.0.2.254"
mode = "$1"
state_file = "status-$1-$2.json"
status_routes = 10
rpki_keys = "keys/bgpsec_keys.json"
connect_retry = 1
hold_time = 90
listen = "127.0.0.1:$3"
router_keys = [{ suite = "1", file = "router.key" }]
[[neighbors]]
address = "127.0.0.2"
remote_as = $FEED_AS
passive = true
bgpsec = true
EOF
  for i in $(seq 1 "$2"); do
    printf '[[neighbors]]\naddress = "127.0.1.%s"\nremote_as = %s\npassive = true\nbgpsec = true\n' "$i" $((64990 + i))
  done
}

gobgpd_config() { # PORT DOWNSTREAM
  cat <<EOF
[global.config]
  as = $ROUTER_AS
  router-id = "192.0.2.254"
  port = $1
  local-address-list = ["127.0.0.1"]
[[neighbors]]
  [neighbors.config]
    neighbor-address = "127.0.0.2"
    peer-as = $FEED_AS
  [neighbors.transport.config]
    passive-mode = true
    local-address = "127.0.0.1"
EOF
  for i in $(seq 1 "$2"); do
    printf '[[neighbors]]\n  [neighbors.config]\n    neighbor-address = "127.0.1.%s"\n    peer-as = %s\n  [neighbors.transport.config]\n    passive-mode = true\n    local-address = "127.0.0.1"\n' "$i" $((64990 + i))
  done
}

for run in $RUNS; do
  kind=${run%%:*}
  down=${run##*:}
  port=$(free_port)
  watch=()
  for i in $(seq 1 "$down"); do
    watch+=(--watch "127.0.0.1:$port" --watch-as $((64990 + i)) --watch-address "127.0.1.$i")
  done
  rm -f "report-$kind-$down.json"
  if [ "$kind" = gobgpd ]; then
    gobgpd_config "$port" "$down" >gobgpd.toml
    api=$(free_port)
    gobgpd -f gobgpd.toml -p --api-hosts "127.0.0.1:$api" --pprof-disable >gobgpd.log 2>&1 &
    pid=$!
    bgpsec=()
    status=()
  else
    speaker_config "$kind" "$down" "$port" >"speaker-$kind-$down.toml"
    "$HOPSIG" speaker run "speaker-$kind-$down.toml" 2>"speaker-$kind-$down.log" &
    pid=$!
    bgpsec=(--bgpsec --watch-bgpsec)
    status=(--status "status-$kind-$down.json")
  fi
  sleep 2
  echo "fulltable: $run (router pid $pid), load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  "$HOPSIG" bgpsec feed --mrt signed.mrt --peer "127.0.0.1:$port" --local-address 127.0.0.2 \
    --local-as "$FEED_AS" --remote-as $ROUTER_AS --from-as "$FEED_AS" "${bgpsec[@]}" \
    "${watch[@]}" "${status[@]}" --router-pid $pid --wait 900 --settle 0 \
    "${LIMIT_ARG[@]}" --json "report-$kind-$down.json" --force || true
  echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)" >"load-$kind-$down.txt"
  kill $pid
  wait $pid 2>/dev/null || true
done

python3 - "$FEED_AS" <<'EOF' | tee summary.md
import json, os, sys
print(f"feed AS {sys.argv[1]}; machine: {os.cpu_count()} CPUs")
print("| run | routes sent | send (s) | all forwarded (s) | all validated (s) | VmHWM idle → forwarded → end (MB) | (end − idle) / route (B) | end / route (B) | load after |")
print("|---|---|---|---|---|---|---|---|---|")
for run in os.environ.get("RUNS", "lazy:1 lazy:2 strict:1 strict:2 gobgpd:1").split():
    kind, down = run.split(":")
    try:
        r = json.load(open(f"report-{kind}-{down}.json"))
    except OSError:
        print(f"| {kind}, {down} downstream | no report | | | | | | | |"); continue
    m = r.get("router_memory") or {}
    n = r["sent"]["expected_forwarded"] or 1
    mb = lambda k: f"{m[k] / 1024:.0f}" if m.get(k) else "?"
    st = (r.get("status") or {}).get("all_validated_s")
    load = open(f"load-{kind}-{down}.txt").read().split(":")[1].strip()
    fwd = r["all_forwarded_s"]
    print(f"| {kind}, {down} downstream | {r['sent']['messages']} | {r['sent']['seconds']:.2f} | "
          f"{fwd if fwd is None else f'{fwd:.2f}'} | {st if st is None else f'{st:.2f}'} | "
          f"{mb('before_kb')} → {mb('forwarded_kb')} → {mb('end_kb')} | "
          f"{(m.get('end_kb', 0) - m.get('before_kb', 0)) * 1024 / n:.0f} | {m.get('end_kb', 0) * 1024 / n:.0f} | {load} |")
EOF
