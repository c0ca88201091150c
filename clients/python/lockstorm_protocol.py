"""The line protocol loop shared by every Python lock (docs/client-protocol.md).

Requests are read line by line; each runs on its own thread, so a
release or extend proceeds while an acquire waits. Exactly one answer
is written per request id; answers and events are written whole, one
line at a time, and flushed.
"""
import json
import os
import sys
import threading
import time
import traceback

import redis

from lockstorm_lock import NotHeld, NotObtained, Unknown, now, remaining_ms

OPS = ("acquire", "release", "extend")
FIELDS = {"id", "op", "key", "ttl_ms", "timeout_ms", "token"}
DEFAULT_TIMEOUT_MS = 1000


class Malformed(ValueError):
    """A request line that is not a JSON object with the protocol's fields."""


def _clip(line):
    return line if len(line) <= 120 else line[:117] + "..."


def _is_int(v):
    return isinstance(v, int) and not isinstance(v, bool)


def parse_request(line):
    """The request a line holds, validated; raises Malformed quoting it."""
    try:
        q = json.loads(line)
    except ValueError as e:
        raise Malformed(f"not JSON ({e}): {_clip(line)!r}") from None
    if not isinstance(q, dict):
        raise Malformed(f"not a JSON object: {_clip(line)!r}")
    problem = None
    if set(q) - FIELDS:
        problem = f"unknown fields {sorted(set(q) - FIELDS)}"
    elif not _is_int(q.get("id")) or q["id"] <= 0:
        problem = "id is not a positive integer"
    elif q.get("op") not in OPS:
        problem = f"unknown op {q.get('op')!r} (acquire, release, extend)"
    elif not isinstance(q.get("key"), str) or not q["key"]:
        problem = "no key"
    elif any(f in q and (not _is_int(q[f]) or q[f] < 0) for f in ("ttl_ms", "timeout_ms")):
        problem = "ttl_ms or timeout_ms is not a non-negative integer"
    elif q["op"] != "acquire" and (not isinstance(q.get("token"), str) or not q["token"]):
        problem = f"{q['op']} without a token"
    if problem:
        raise Malformed(f"{problem}: {_clip(line)!r}")
    return q


class Server:
    """Serves one lock: new_lock(env, events) builds it with this server
    as its events sink (renewed, lost)."""

    def __init__(self, env, new_lock, out=sys.stdout, log=sys.stderr):
        self.env, self.out, self.log_stream = env, out, log
        self._wmu = threading.Lock()  # stdout, one line at a time
        self._lmu = threading.Lock()  # stderr
        self._mu = threading.Lock()  # _inflight, _threads
        self._inflight = set()
        self._threads = set()
        self.lock = new_lock(env, self)

    # Output.

    def _write(self, obj, deadline=None):
        """Writes obj as one flushed line; validity_ms, when deadline is
        given, is computed under the write lock, just before the write,
        with mono_ns (CLOCK_MONOTONIC) when it was measured."""
        with self._wmu:
            if deadline is not None:
                obj["mono_ns"] = time.monotonic_ns()
                obj["validity_ms"] = remaining_ms(deadline)
            try:
                self.out.write(json.dumps(obj, separators=(",", ":")) + "\n")
                self.out.flush()
            except (BrokenPipeError, ValueError) as e:  # the harness is gone: no one to answer
                self.log(f"write: {e!r}: exiting")
                os._exit(1)

    def log(self, msg):
        with self._lmu:
            print(f"lockstorm_client: {msg}", file=self.log_stream, flush=True)

    def renewed(self, key, token, deadline):
        """Event: a watchdog renewed the lease; valid until deadline."""
        self._write({"event": "renewed", "key": key, "token": token}, deadline)

    def lost(self, key, token, error):
        """Event: the client knows the lease is lost."""
        self._write({"event": "lost", "key": key, "token": token, "error": error})

    # Input.

    def serve(self, inp=sys.stdin):
        """Reads requests until EOF, then waits until every request in
        progress is answered."""
        for line in inp:
            if line.strip():
                self._accept(line.strip())
        with self._mu:
            threads = list(self._threads)
        for t in threads:
            t.join()
        self.lock.close()

    def _begin(self, id_):
        with self._mu:
            if id_ in self._inflight:
                return False
            self._inflight.add(id_)
            return True

    def _accept(self, line):
        try:
            q = parse_request(line)
        except Malformed as e:
            self.log(f"malformed request: {e}")
            try:
                id_ = json.loads(line).get("id")
            except (ValueError, AttributeError):
                return
            if _is_int(id_) and id_ > 0 and self._begin(id_):
                self._answer(id_, {"type": "fail", "error": f"malformed request: {e}"})
            return
        if not self._begin(q["id"]):
            self.log(f"request id {q['id']} is already in progress: line ignored")
            return
        t = threading.Thread(target=self._run, args=(q,), daemon=True)
        with self._mu:
            self._threads.add(t)
        t.start()

    def _answer(self, id_, a, deadline=None):
        self._write({"id": id_, **a}, deadline)
        with self._mu:
            self._inflight.discard(id_)

    def _run(self, q):
        deadline = None
        try:
            a, deadline = self._perform(q)
        except (NotObtained, NotHeld) as e:
            a = {"type": "fail", "error": str(e)}
        except Unknown as e:
            a = {"type": "info", "error": str(e)}
        except redis.RedisError as e:  # a timeout or a lost link: the outcome is unknown
            a = {"type": "info", "error": repr(e)}
        except Exception as e:  # noqa: BLE001 — unknown, whatever it is; logged in full
            self.log(f"request {q['id']}: {traceback.format_exc()}")
            a = {"type": "info", "error": repr(e)}
        self._answer(q["id"], a, deadline)
        with self._mu:
            self._threads.discard(threading.current_thread())

    def _perform(self, q):
        """The answer to q and its validity deadline (None: no validity)."""
        key = q["key"]
        if q["op"] == "acquire":
            if q.get("ttl_ms") and q["ttl_ms"] != self.env.ttl_ms:
                raise NotObtained(f"ttl_ms {q['ttl_ms']} differs from the client's TTL {self.env.ttl_ms} ms")
            g = self.lock.acquire(key, now() + (q.get("timeout_ms") or DEFAULT_TIMEOUT_MS) / 1000)
            a = {"type": "ok", "token": g.token}
            if g.fence:
                a["fence"] = g.fence
            if g.nodes:
                a["nodes"] = g.nodes
            return a, g.deadline
        if q["op"] == "release":
            self.lock.release(key, q["token"])
            return {"type": "ok"}, None
        return {"type": "ok"}, self.lock.extend(key, q["token"])
