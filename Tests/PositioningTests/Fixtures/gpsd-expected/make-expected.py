#!/usr/bin/env python3
"""Runs a real gpsd over each NMEA log and records what it reports, as expected values.

Usage: make-expected.py LOG... (writes <log name>.json beside this script)

Needs only the `gpsd` package (not gpsd-clients). For each log: a TCP feeder on a free
port serves the log's non-comment lines (a few ms apart, so gpsd's cycle detection sees
them as a receiver would send them); `gpsd -N -S <free port> -F <socket>
tcp://127.0.0.1:<feeder>` reads it; this script connects as a client, sends ?WATCH and
keeps every TPV. Fixes (mode >= 2) are deduplicated by time (gpsd may repeat the first
epoch) and written in order.
"""
import json, os, socket, subprocess, sys, tempfile, threading, time

def free_port():
    s = socket.socket(); s.bind(("127.0.0.1", 0)); p = s.getsockname()[1]; s.close(); return p

def feeder(server, lines, done):
    conn, _ = server.accept()
    for line in lines:
        conn.sendall(line)
        time.sleep(0.004)
    time.sleep(1.5)
    conn.close(); server.close(); done.set()

def run(log):
    lines = [l for l in open(log, "rb").read().splitlines(keepends=True) if not l.startswith(b"#")]
    server = socket.socket(); server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0)); server.listen(1)
    feed_port = server.getsockname()[1]
    done = threading.Event()
    threading.Thread(target=feeder, args=(server, lines, done), daemon=True).start()
    port = free_port()
    sock = os.path.join(tempfile.mkdtemp(), "gpsd.sock")
    gpsd = subprocess.Popen(["gpsd", "-N", "-S", str(port), "-F", sock, f"tcp://127.0.0.1:{feed_port}"])
    try:
        for _ in range(100):
            try:
                c = socket.create_connection(("127.0.0.1", port)); break
            except OSError:
                time.sleep(0.05)
        c.sendall(b'?WATCH={"enable":true,"json":true}\n')
        c.settimeout(0.5)
        buf = b""; tpvs = []
        while True:
            try:
                data = c.recv(65536)
                if not data: break
                buf += data
            except socket.timeout:
                if done.is_set(): break
        for line in buf.splitlines():
            obj = json.loads(line)
            if obj.get("class") == "TPV": tpvs.append(obj)
    finally:
        gpsd.terminate(); gpsd.wait()
    fixes, seen = [], set()
    for t in tpvs:
        if t.get("mode", 0) >= 2 and "time" in t and t["time"] not in seen:
            seen.add(t["time"])
            fixes.append({k: t[k] for k in ("time", "mode", "lat", "lon", "altMSL", "altHAE", "eph", "epv", "speed", "track") if k in t})
    return {"log": os.path.basename(log), "gpsd": subprocess.run(["gpsd", "-V"], capture_output=True, text=True).stdout.strip(),
            "tpvCount": len(tpvs), "noFixTPVs": sum(1 for t in tpvs if t.get("mode", 0) < 2), "fixCount": len(fixes), "fixes": fixes}

for log in sys.argv[1:]:
    result = run(log)
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.path.basename(log).removesuffix(".log") + ".json")
    with open(out, "w") as f: json.dump(result, f, indent=1, sort_keys=True); f.write("\n")
    print(f"{result['log']}: {result['fixCount']} fixes, {result['tpvCount']} TPVs", file=sys.stderr)
