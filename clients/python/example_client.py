#!/usr/bin/env python3
"""lockstorm example client: SET NX PX, Lua compare-and-delete (docs/client-protocol.md)."""
import json, os, sys, time, uuid
import redis

NODE = os.environ["LOCKSTORM_NODES"].split(",")[0]
TTL = int(os.environ.get("LOCKSTORM_TTL_MS", "1000"))
r = redis.Redis(host=NODE.rsplit(":", 1)[0], port=int(NODE.rsplit(":", 1)[1]), socket_timeout=TTL / 10000 + 0.05)
RELEASE = r.register_script("if redis.call('get',KEYS[1])==ARGV[1] then return redis.call('del',KEYS[1]) end return 0")
EXTEND = r.register_script("if redis.call('get',KEYS[1])==ARGV[1] then return redis.call('pexpire',KEYS[1],ARGV[2]) end return 0")

def handle(q):
    deadline = time.monotonic() + q.get("timeout_ms", 1000) / 1000
    if q["op"] == "acquire":
        token = uuid.uuid4().hex
        while True:
            start = time.monotonic()
            if r.set(q["key"], token, nx=True, px=TTL):
                mono = time.monotonic_ns()  # when the validity is measured
                left = TTL - (mono / 1e9 - start) * 1000 - TTL * 0.01 - 2
                return {"type": "ok", "token": token, "validity_ms": max(int(left), 0), "mono_ns": mono}
            if time.monotonic() > deadline:
                return {"type": "fail", "error": "not obtained"}
            time.sleep(0.005)
    start = time.monotonic()
    script = RELEASE if q["op"] == "release" else EXTEND
    if not script(keys=[q["key"]], args=[q["token"], TTL]):
        return {"type": "fail", "error": "not held"}
    mono = time.monotonic_ns()
    left = TTL - (mono / 1e9 - start) * 1000 - TTL * 0.01 - 2
    return {"type": "ok", "validity_ms": max(int(left), 0), "mono_ns": mono} if q["op"] == "extend" else {"type": "ok"}

for line in sys.stdin:
    q = json.loads(line)
    try:
        a = handle(q)
    except redis.RedisError as e:  # a timeout or a lost link: the outcome is unknown
        a = {"type": "info", "error": repr(e)}
    print(json.dumps({"id": q["id"], **a}), flush=True)
