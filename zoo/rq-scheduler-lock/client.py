#!/usr/bin/env python3
"""lockstorm zoo adapter: rq's scheduler lock (Debian python3-rq 1.13.0),
rq.scheduler.RQScheduler, used as rq's worker uses it.

One RQScheduler per client process (an rq worker has one), for one queue
named after the protocol's key: its lock is rq's key
rq:scheduler-lock:<key>.

acquire: RQScheduler.acquire_locks(), which is one SET key pid NX EX
         (interval + 60); it answers the set of queues it locked. Retried
         with lockstorm's backoff until timeout_ms, as rq's worker retries
         it later.
extend:  RQScheduler.heartbeat(), one EXPIRE key (interval + 60): it
         answers nothing, so ok unless it raised.
release: RQScheduler.release_locks(), one DEL key: ok unless it raised.

token: the value rq stores under the key, the scheduler's pid (str).
validity: (interval + 60) s - drift from when the SET or EXPIRE was sent.
rq's lock lives interval + 60 whole seconds; a lockstorm run cannot wait a
minute, so the adapter passes interval = TTL_s - 60 (negative), which makes
the key's EX the TTL. The interval is used elsewhere only by work()'s
sleep, which the adapter never runs. The TTL must be whole seconds.
A redis error (a timeout, a lost link) is unknown: info.
"""
import logging
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from lockstorm_env import Env, EnvError  # noqa: E402
from lockstorm_lock import Backoff, Grant, NotHeld, NotObtained, Unknown, now, time_for_attempt  # noqa: E402
from lockstorm_protocol import Server  # noqa: E402

import redis  # noqa: E402
from rq.scheduler import RQScheduler  # noqa: E402


class RQLock:
    def __init__(self, env, events):
        if env.ttl_ms % 1000:
            raise EnvError(f"LOCKSTORM_TTL_MS={env.ttl_ms}: rq's scheduler lock lives whole seconds")
        self.env, self.events = env, events
        self.interval = env.ttl_ms // 1000 - 60  # EX = interval + 60 = TTL
        self.conn = env.client(0)
        self.node = env.names[0]
        self.pid = str(os.getpid())
        self.scheds = {}  # key -> RQScheduler (one queue each)

    def sched(self, key):
        s = self.scheds.get(key)
        if s is None:
            s = RQScheduler([key], connection=self.conn, interval=self.interval)
            self.scheds[key] = s
        return s

    def valid(self, sent):
        return sent + ((self.interval + 60) * 1000 - self.env.drift_ms) / 1000

    def acquire(self, key, deadline):
        s, backoff = self.sched(key), Backoff(self.env)
        while True:
            if not time_for_attempt(self.env, deadline):
                raise NotObtained("rq acquire_locks: not obtained before timeout_ms")
            sent = now()
            try:
                got = s.acquire_locks()
            except redis.RedisError as e:
                raise Unknown(f"rq acquire_locks: {e!r}") from e
            if key in got:
                valid = self.valid(sent)
                if now() >= valid:
                    raise Unknown("rq acquire_locks: granted after its validity")
                return Grant(self.pid, valid, 0, [self.node])
            if not backoff.sleep(deadline):
                raise NotObtained("rq acquire_locks: not obtained before timeout_ms")

    def _check(self, key, token):
        if token != self.pid or key not in self.scheds:
            raise NotHeld("not held: this scheduler (pid) never locked that key")

    def extend(self, key, token):
        self._check(key, token)
        sent = now()
        self.scheds[key].heartbeat()  # EXPIRE, its answer ignored by rq
        valid = self.valid(sent)
        if now() >= valid:
            raise NotHeld("rq heartbeat: validity elapsed before the answer")
        return valid

    def release(self, key, token):
        self._check(key, token)
        self.scheds[key].release_locks()  # DEL, unconditional

    def close(self):
        pass


def main():
    # rq's log handlers write below ERROR to stdout, the protocol's stream:
    # a root handler on stderr first, so rq adds none of its own.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        env = Env(os.environ)
        Server(env, RQLock).serve()
    except EnvError as e:
        print(f"rq-scheduler-lock client: {e}", file=sys.stderr, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
