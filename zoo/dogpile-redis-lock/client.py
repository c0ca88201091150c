#!/usr/bin/env python3
"""lockstorm zoo adapter: dogpile.cache's Redis backend lock (Debian
python3-dogpile.cache 1.1.8, python3-redis 4.3.4): RedisBackend with
distributed_lock=True, its get_mutex(key), as dogpile's docs configure it.

The backend: dogpile.cache.backends.redis.RedisBackend({"host", "port",
"db": 0, "distributed_lock": True, "thread_local_lock": False,
"lock_timeout": TTL seconds, "lock_sleep": 0.01, "socket_timeout": the
node timeout}) (what make_region().configure('dogpile.cache.redis',
arguments=...) builds). get_mutex(key) answers a mutex with acquire(wait),
release() and locked(): a redis-py Lock on the key "_lock<key>".

acquire: get_mutex(key).acquire(wait=False), tried again after lock_sleep
         until timeout_ms (acquire(wait=True) has no bound: it would block
         past the request's timeout); True ok.
extend:  the mutex cannot extend (dogpile's mutex has no such method): fail.
release: mutex.release().
token: the redis-py lock's own token (mutex.mutex.local.token).
validity: lock_timeout - drift from when the winning SET NX PX was sent
(the adapter wraps the redis-py lock's do_acquire only to note that time).
A LockError (LockNotOwnedError included) is certain: fail. A connection
error or timeout is unknown: info.
"""
import logging
import os
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from lockstorm_env import Env, EnvError  # noqa: E402
from lockstorm_lock import Grant, NotHeld, NotObtained, now, time_for_attempt, valid_until  # noqa: E402
from lockstorm_protocol import Server  # noqa: E402

from dogpile.cache.backends.redis import RedisBackend  # noqa: E402
from redis.exceptions import LockError  # noqa: E402

LOCK_SLEEP_S = 0.01


class DogpileLock:
    def __init__(self, env, events):
        if env.ttl_ms % 1000:
            raise EnvError(f"LOCKSTORM_TTL_MS={env.ttl_ms}: dogpile's lock_timeout is whole seconds")
        self.env, self.events = env, events
        host, port = env.nodes[0]
        self.backend = RedisBackend({
            "host": host, "port": port, "db": 0,
            "distributed_lock": True, "thread_local_lock": False,
            "lock_timeout": env.ttl_ms // 1000, "lock_sleep": LOCK_SLEEP_S,
            "socket_timeout": env.node_timeout_s,
        })
        self.node = env.names[0]
        self._mu = threading.Lock()
        self._held = {}  # token -> (key, mutex)

    def acquire(self, key, deadline):
        mutex = self.backend.get_mutex(key)
        inner = mutex.mutex  # redis-py's Lock: note when each SET NX PX is sent
        sent = [0.0]
        do_acquire = inner.do_acquire

        def timed_do_acquire(token):
            sent[0] = now()
            return do_acquire(token)

        inner.do_acquire = timed_do_acquire
        while True:
            if not time_for_attempt(self.env, deadline):
                raise NotObtained("dogpile mutex.acquire(False): not obtained before timeout_ms")
            if mutex.acquire(False):
                break
            if now() + LOCK_SLEEP_S >= deadline:
                raise NotObtained("dogpile mutex.acquire(False): not obtained before timeout_ms")
            time.sleep(LOCK_SLEEP_S)
        token = inner.local.token.decode()
        with self._mu:
            self._held[token] = (key, mutex)
        return Grant(token, valid_until(self.env, sent[0]), 0, [self.node])

    def _lookup(self, key, token, pop):
        with self._mu:
            h = self._held.get(token)
            if h is None or h[0] != key:
                raise NotHeld("not held: this client has no lease with that key and token")
            if pop:
                del self._held[token]
            return h[1]

    def extend(self, key, token):
        self._lookup(key, token, pop=False)
        raise NotHeld("dogpile's mutex cannot extend (acquire, release, locked only)")

    def release(self, key, token):
        mutex = self._lookup(key, token, pop=True)
        try:
            mutex.release()
        except LockError as e:
            raise NotHeld(f"mutex.release: {e}") from e

    def close(self):
        pass


def main():
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        env = Env(os.environ)
        Server(env, DogpileLock).serve()
    except EnvError as e:
        print(f"dogpile-redis-lock client: {e}", file=sys.stderr, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
