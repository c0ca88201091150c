"""A test client that answers the protocol wrongly, by mode (argv[1]):
liar: ok to everything, claiming 100 s of validity, and a renewed event
  after each extend; duplicate: answers each request twice; unknown:
  answers an id never sent; notoken: an ok acquire without a token;
  closeout: closes stdout at the first request and keeps running; echo:
  answers fail with the request, as received, for its error; slow: an
  ok acquire claiming 1 s of validity, measured (mono_ns) 300 ms before
  it is written; farclock: an ok acquire with a mono_ns of another clock
  (1 ns)."""
import json
import os
import sys
import time

mode = sys.argv[1]


def send(v):
    sys.stdout.write(json.dumps(v) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    q = json.loads(line)
    if mode == "liar":
        a = {"id": q["id"], "type": "ok", "validity_ms": 100000}
        if q["op"] == "acquire":
            a["token"] = "liar-token"
        send(a)
        if q["op"] == "extend":
            send({"event": "renewed", "key": q["key"], "token": q["token"], "validity_ms": 100000})
    elif mode == "duplicate":
        send({"id": q["id"], "type": "fail", "error": "not obtained"})
        send({"id": q["id"], "type": "fail", "error": "not obtained"})
    elif mode == "unknown":
        send({"id": q["id"] + 1000, "type": "fail", "error": "not obtained"})
    elif mode == "notoken":
        send({"id": q["id"], "type": "ok", "validity_ms": 100})
    elif mode == "echo":
        send({"id": q["id"], "type": "fail", "error": json.dumps(q)})
    elif mode == "slow":
        mono = time.monotonic_ns()
        time.sleep(0.3)
        send({"id": q["id"], "type": "ok", "token": "t", "validity_ms": 1000, "mono_ns": mono})
    elif mode == "farclock":
        send({"id": q["id"], "type": "ok", "token": "t", "validity_ms": 1000, "mono_ns": 1})
    elif mode == "closeout":
        os.close(1)
        time.sleep(100)
