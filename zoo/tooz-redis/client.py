#!/usr/bin/env python3
"""lockstorm zoo adapter: tooz's Redis driver lock (Debian python3-tooz
3.1.0 on python3-redis 4.3.4), used as tooz's docs show.

    client.py [--lock-timeout SECONDS] [--heart]

The coordinator: tooz.coordination.get_coordinator(
"redis://HOST:PORT?timeout=1&lock_timeout=L", member_id), started with
coordinator.start(start_heart=HEART). tooz's options are whole seconds
(int()): timeout=1 is the shortest socket timeout it takes; lock_timeout
defaults to the TTL (which must then be whole seconds).

acquire: coordinator.get_lock(key).acquire(blocking=timeout_ms in seconds);
         True ok, False fail.
extend:  coordinator.heartbeat(), the documented way to keep a member and
         its locks alive: it renews every lock this coordinator holds and
         only logs a lock it could not renew, so it answers ok unless the
         member's own beat raised.
release: lock.release(); True ok, False (tooz logged a LockError: not
         owned) fail.

token: the lock's own token, the value redis-py stored (lock._lock.local.token).
validity: lock_timeout s - drift from when the winning SET NX PX (or the
heartbeat) was sent; with lock_timeout 0 (the key never expires) the TTL
- drift, conservatively.

--heart: start_heart=True, tooz's own heartbeat thread renews the locks
(every half of min(lock_timeout, membership timeout)). The adapter
watches each lock's heartbeat() and sends a renewed event when it returned
True (a reacquire the server accepted). It never sends lost: tooz only
logs a failed heartbeat and tells the holder nothing.

A ToozConnectionError (a redis timeout or lost link, after tooz's own
retries) or any other error is unknown: info.
"""
import argparse
import logging
import os
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from lockstorm_env import Env, EnvError  # noqa: E402
from lockstorm_lock import Grant, NotHeld, NotObtained, Unknown, now  # noqa: E402
from lockstorm_protocol import Server  # noqa: E402

import tooz  # noqa: E402
from tooz import coordination  # noqa: E402


class Lease:
    def __init__(self, key, lock):
        self.key, self.lock = key, lock
        self.mu = threading.Lock()  # a watched heartbeat and the release
        self.released = False
        self.token = None


class ToozLock:
    def __init__(self, env, events, lock_timeout, heart):
        self.env, self.events, self.heart = env, events, heart
        if lock_timeout is None:
            if env.ttl_ms % 1000:
                raise EnvError(f"LOCKSTORM_TTL_MS={env.ttl_ms}: tooz's lock_timeout is whole seconds")
            lock_timeout = env.ttl_ms // 1000
        self.lock_timeout = lock_timeout
        host, port = env.nodes[0]
        url = f"redis://{host}:{port}?timeout=1&lock_timeout={lock_timeout}"
        member = f"lockstorm-{env.slot}-{os.getpid()}".encode()
        self.coord = coordination.get_coordinator(url, member)
        self.coord.start(start_heart=heart)
        self.node = env.names[0]
        self._mu = threading.Lock()
        self._held = {}  # token -> Lease

    def valid(self, sent):
        ttl_ms = self.lock_timeout * 1000 if self.lock_timeout > 0 else self.env.ttl_ms
        return sent + (ttl_ms - self.env.drift_ms) / 1000

    def acquire(self, key, deadline):
        lock = self.coord.get_lock(key)
        inner = lock._lock  # redis-py's Lock: note when each SET NX PX is sent
        sent = [0.0]
        do_acquire = inner.do_acquire

        def timed_do_acquire(token):
            sent[0] = now()
            return do_acquire(token)

        inner.do_acquire = timed_do_acquire
        lease = Lease(key, lock)
        if self.heart:
            self._watch(lease)
        try:
            ok = lock.acquire(blocking=max(deadline - now(), 0.0))
        except tooz.ToozError as e:
            raise Unknown(f"tooz acquire: {e!r}") from e
        if not ok:
            raise NotObtained("tooz Lock.acquire: not obtained within blocking")
        lease.token = inner.local.token.decode()
        valid = self.valid(sent[0])
        with self._mu:
            self._held[lease.token] = lease
        return Grant(lease.token, valid, 0, [self.node])

    def _watch(self, lease):
        """Wraps the lock's heartbeat (called by tooz's heart through
        coordinator.heartbeat()) to send renewed when it returned True."""
        beat = lease.lock.heartbeat

        def watched():
            with lease.mu:
                sent = now()
                ok = beat()  # raises ToozError on failure: tooz's heartbeat logs it
                if ok and not lease.released and lease.token is not None:
                    valid = self.valid(sent)
                    if now() < valid:
                        self.events.renewed(lease.key, lease.token, valid)
                return ok

        lease.lock.heartbeat = watched

    def _lookup(self, key, token, pop):
        with self._mu:
            lease = self._held.get(token)
            if lease is None or lease.key != key:
                raise NotHeld("not held: this client has no lease with that key and token")
            if pop:
                del self._held[token]
            return lease

    def extend(self, key, token):
        self._lookup(key, token, pop=False)
        sent = now()
        try:
            self.coord.heartbeat()
        except tooz.ToozError as e:
            raise Unknown(f"tooz coordinator.heartbeat: {e!r}") from e
        valid = self.valid(sent)
        if now() >= valid:
            raise NotHeld("tooz heartbeat: validity elapsed before the answer")
        return valid

    def release(self, key, token):
        lease = self._lookup(key, token, pop=True)
        with lease.mu:
            lease.released = True
            try:
                ok = lease.lock.release()
            except tooz.ToozError as e:
                raise Unknown(f"tooz release: {e!r}") from e
        if not ok:
            raise NotHeld("tooz Lock.release: False (not owned)")

    def close(self):
        pass


def main():
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    ap = argparse.ArgumentParser()
    ap.add_argument("--lock-timeout", type=int, default=None)
    ap.add_argument("--heart", action="store_true")
    args = ap.parse_args()
    try:
        env = Env(os.environ)
        Server(env, lambda e, ev: ToozLock(e, ev, args.lock_timeout, args.heart)).serve()
    except EnvError as e:
        print(f"tooz-redis client: {e}", file=sys.stderr, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
