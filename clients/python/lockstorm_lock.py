"""What every Python lock shares: outcomes, grants, timing, the seed's
single-node algorithm.

A lock is an object with
    acquire(key, deadline) -> Grant
    release(key, token)
    extend(key, token) -> new validity deadline
    close()
where deadlines are time.monotonic() seconds. Outcomes are exceptions:
NotObtained and NotHeld mean certainly not done (the protocol's fail);
Unknown, any redis.RedisError and anything else mean the outcome is
unknown (info).
"""
import random
import secrets
import time

import redis

RELEASE_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

EXTEND_LUA = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""

# The backoff between acquire attempts: jittered, exponential from
# RETRY_MIN_S, capped at min(RETRY_MAX_S, TTL/2) (as lockimpl's Backoff).
RETRY_MIN_S = 0.002
RETRY_MAX_S = 0.050
# The least time an acquire attempt needs before the deadline (lockimpl's
# minAttempt): a command sent with less would likely time out after
# leaving, making the outcome unknown, where not sending it is a certain
# failure.
MIN_ATTEMPT_S = 0.005


class NotObtained(Exception):
    """acquire: the lock was certainly not obtained before the deadline."""


class NotHeld(Exception):
    """release, extend: certainly not done (the lease is not held, or the
    lock cannot extend)."""


class Unknown(Exception):
    """The outcome is unknown (the lock may be held, or released)."""


class Grant:
    """An acquired lease: its token, validity deadline (monotonic
    seconds), fencing token (0 = none) and the names of the nodes that
    granted it."""

    def __init__(self, token, deadline, fence=0, nodes=()):
        self.token, self.deadline, self.fence, self.nodes = token, deadline, fence, list(nodes)


def new_token():
    """16 random bytes, hex: the value a lock stores under its key."""
    return secrets.token_hex(16)


def now():
    return time.monotonic()


def valid_until(env, sent):
    """The validity deadline of a grant or renewal whose command was sent
    at sent (monotonic seconds): sent + TTL - drift. The server's TTL
    cannot have started before the command was sent."""
    return sent + (env.ttl_ms - env.drift_ms) / 1000


def remaining_ms(deadline):
    """Whole milliseconds left until deadline, never negative."""
    return max(int((deadline - now()) * 1000), 0)


class Backoff:
    """Delays between acquire attempts: exponential from RETRY_MIN_S,
    capped at min(RETRY_MAX_S, TTL/2), drawn from the upper half so
    clients do not retry in lock step."""

    def __init__(self, env):
        self.cap = max(min(RETRY_MAX_S, env.ttl_s / 2), RETRY_MIN_S)
        self.d = RETRY_MIN_S

    def sleep(self, deadline):
        """Sleeps the next delay; False (without sleeping) when the
        deadline would pass first."""
        d = random.uniform(self.d / 2, self.d)
        self.d = min(self.d * 2, self.cap)
        if now() + d >= deadline:
            return False
        time.sleep(d)
        return True


def time_for_attempt(env, deadline):
    """Whether deadline leaves time for one more attempt."""
    return deadline - now() >= min(MIN_ATTEMPT_S, env.node_timeout_s / 2)


class SingleNode:
    """The seed's single-instance lock on node 0: SET key token NX PX ttl
    to acquire (retried with backoff until the deadline), a Lua
    compare-and-delete to release, a Lua compare-and-pexpire to extend. A
    lease is valid for TTL - drift from its command's send; nothing renews
    it. Subclasses change attempt()."""

    def __init__(self, env, events):
        self.env, self.events = env, events
        self.r = env.client(0)
        self.node = env.names[0]
        self._release = self.r.register_script(RELEASE_LUA)
        self._extend = self.r.register_script(EXTEND_LUA)

    def attempt(self, key, token):
        """One acquire attempt: (granted, fence). Raises redis errors."""
        return bool(self.r.set(key, token, nx=True, px=self.env.ttl_ms)), 0

    def cleanup(self, key, token):
        """Best-effort release after an attempt of unknown outcome; whether
        the node answered."""
        try:
            self._release(keys=[key], args=[token])
            return True
        except redis.RedisError:
            return False

    def acquire(self, key, deadline):
        token, backoff = new_token(), Backoff(self.env)
        while True:
            if not time_for_attempt(self.env, deadline):
                raise NotObtained("lock not obtained before timeout_ms")
            sent = now()
            try:
                ok, fence = self.attempt(key, token)
            except redis.RedisError as e:
                self.cleanup(key, token)
                raise Unknown(f"acquire: {e!r}") from e
            if ok:
                valid = valid_until(self.env, sent)
                if now() < valid:
                    return Grant(token, valid, fence, [self.node])
                # Granted too late to be of use: give it back, try again.
                if not self.cleanup(key, token):
                    raise Unknown("acquire: granted after its validity, and its release failed")
            if not backoff.sleep(deadline):
                raise NotObtained("lock not obtained before timeout_ms")

    def release(self, key, token):
        if not self._release(keys=[key], args=[token]):
            raise NotHeld("release: not held (key absent or another token's)")

    def extend(self, key, token):
        sent = now()
        if not self._extend(keys=[key], args=[token, self.env.ttl_ms]):
            raise NotHeld("extend: not held (key absent or another token's)")
        valid = valid_until(self.env, sent)
        if now() >= valid:
            raise NotHeld("extend: validity elapsed before the answer")
        return valid

    def close(self):
        pass
