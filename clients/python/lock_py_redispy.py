"""py-redispy: redis-py's own lock, redis.lock.Lock, used as its
documentation shows.

acquire: Lock(timeout=TTL, blocking_timeout=timeout_ms, sleep=5 ms).acquire(),
which loops on SET NX PX; release: Lock.release(); extend:
Lock.extend(TTL, replace_ttl=True). A LockError (LockNotOwnedError
included) is certain: fail. A connection error or timeout is unknown:
info. redis-py gives an acquire whose SET times out no cleanup, and
neither does this client: the key may stay until its TTL runs out.

When LOCKSTORM_RENEW_MS is set, a watchdog thread per lease calls
extend() at that interval, sends a renewed event for each success and a
lost event for the first failure. Without it nothing renews a lease
(redis-py has no watchdog of its own).
"""
import threading

import redis.lock
from redis.exceptions import LockError

from lockstorm_lock import Grant, NotHeld, NotObtained, now, valid_until
from lockstorm_watchdog import Watchdog

SLEEP_S = 0.005


def seconds(ms):
    """ms as redis-py's seconds, such that its int(seconds * 1000) gives ms back."""
    return (ms + 0.25) / 1000


class TimedLock(redis.lock.Lock):
    """redis-py's Lock, noting when its latest SET was sent: a grant is
    valid for TTL - drift from then."""

    sent = 0.0

    def do_acquire(self, token):
        self.sent = now()
        return super().do_acquire(token)


class RedisPy:
    def __init__(self, env, events):
        self.env, self.events = env, events
        self.r = env.client(0)
        self.node = env.names[0]
        self._mu = threading.Lock()
        self._held = {}  # token -> (key, TimedLock, Watchdog or None)

    def acquire(self, key, deadline):
        # thread_local=False: a later request's thread releases it.
        lock = TimedLock(self.r, key, timeout=seconds(self.env.ttl_ms), sleep=SLEEP_S,
                         blocking_timeout=max(deadline - now(), 0), thread_local=False)
        if not lock.acquire():
            raise NotObtained("redis-py Lock.acquire: not obtained within blocking_timeout")
        token = lock.local.token.decode()
        valid = valid_until(self.env, lock.sent)
        dog = None
        if self.env.renew_ms:
            dog = Watchdog(self.env.renew_ms / 1000, valid, lambda: self._extend(lock),
                           lambda d: self.events.renewed(key, token, d),
                           lambda why: self.events.lost(key, token, f"lease lost: {why}"))
        with self._mu:
            self._held[token] = (key, lock, dog)
        return Grant(token, valid, 0, [self.node])

    def _extend(self, lock):
        sent = now()
        try:
            lock.extend(seconds(self.env.ttl_ms), replace_ttl=True)
        except LockError as e:
            raise NotHeld(f"redis-py Lock.extend: {e}") from e
        valid = valid_until(self.env, sent)
        if now() >= valid:
            raise NotHeld("redis-py Lock.extend: validity elapsed before the answer")
        return valid

    def _lookup(self, key, token, pop):
        with self._mu:
            h = self._held.get(token)
            if h is None or h[0] != key:
                raise NotHeld("not held: this client has no lease with that key and token")
            if pop:
                del self._held[token]
            return h

    def release(self, key, token):
        _, lock, dog = self._lookup(key, token, pop=True)
        if dog:
            dog.stop()  # no renewal runs after this
        try:
            lock.release()
        except LockError as e:
            raise NotHeld(f"redis-py Lock.release: {e}") from e

    def extend(self, key, token):
        _, lock, dog = self._lookup(key, token, pop=False)
        valid = self._extend(lock)
        if dog:
            dog.moved(valid)
        return valid

    def close(self):
        with self._mu:
            held, self._held = list(self._held.values()), {}
        for _, _, dog in held:
            if dog:
                dog.stop()


def new(env, events):
    return RedisPy(env, events)
