"""py-seed-redlock: the seed's Redlock (lockimpl/redlock.go is the correct one).

acquire: SET key token NX PX ttl on each node in turn, sequentially; the
lock is held once a majority (N/2+1) granted it. A failed round releases
(compare-and-delete) every node that granted it or whose answer was
lost, then retries with backoff until timeout_ms. release: the
compare-and-delete on every node. extend: the compare-and-pexpire on
every node in turn, ok on a majority. nodes in an ok answer are the
names of the nodes that granted.

The seed's mistake, kept on purpose: no validity computation. The answer
claims the full TTL - drift from the moment of the answer, although the
first node's key has been expiring since its SET was sent, so a
sequential acquire that took long (a slow or partitioned node costs up to
its node timeout) claims validity the lease no longer has; and a majority
granted after the TTL had run out on the first nodes is still reported
ok. lockimpl/redlock.go sends to all nodes in parallel and counts the
validity from the attempt's start, giving up when it has run out.
"""
import redis

from lockstorm_lock import (EXTEND_LUA, RELEASE_LUA, Backoff, Grant, NotHeld, NotObtained, Unknown,
                            new_token, now, time_for_attempt)


class SeedRedlock:
    def __init__(self, env, events):
        self.env = env
        self.clients = env.clients()
        self.quorum = len(self.clients) // 2 + 1
        self._release = [c.register_script(RELEASE_LUA) for c in self.clients]
        self._extend = [c.register_script(EXTEND_LUA) for c in self.clients]

    def _claimed(self):
        """The seed's validity: TTL - drift from now, whatever the acquire cost."""
        return now() + (self.env.ttl_ms - self.env.drift_ms) / 1000

    def acquire(self, key, deadline):
        token, backoff = new_token(), Backoff(self.env)
        while True:
            if not time_for_attempt(self.env, deadline):
                raise NotObtained("lock not obtained on a majority before timeout_ms")
            granted, unknown, last = [], [], None
            for i, c in enumerate(self.clients):
                try:
                    if c.set(key, token, nx=True, px=self.env.ttl_ms):
                        granted.append(i)
                except redis.RedisError as e:
                    unknown.append(i)
                    last = e
            if len(granted) >= self.quorum:
                return Grant(token, self._claimed(), 0, [self.env.names[i] for i in granted])
            maybe = self._undo(key, token, granted, unknown)
            if maybe >= self.quorum:
                raise Unknown(f"acquire: {maybe} of {len(self.clients)} nodes may hold the token: {last!r}")
            if not backoff.sleep(deadline):
                raise NotObtained("lock not obtained on a majority before timeout_ms")

    def _undo(self, key, token, granted, unknown):
        """Releases a failed round's token and returns how many nodes may
        still hold it: a release that failed, or a SET of unknown outcome
        that may still land after its release found nothing."""
        maybe = 0
        for i in granted + unknown:
            try:
                if not self._release[i](keys=[key], args=[token]) and i in unknown:
                    maybe += 1
            except redis.RedisError:
                maybe += 1
        return maybe

    def release(self, key, token):
        released, failed, last = 0, 0, None
        for script in self._release:
            try:
                released += int(script(keys=[key], args=[token]) == 1)
            except redis.RedisError as e:
                failed, last = failed + 1, e
        if failed >= self.quorum:
            raise Unknown(f"release: {failed} of {len(self.clients)} nodes did not answer: {last!r}")
        if released == 0:
            raise NotHeld("release: no node held the token")

    def extend(self, key, token):
        ok, no, last = 0, 0, None
        for script in self._extend:
            try:
                if script(keys=[key], args=[token, self.env.ttl_ms]) == 1:
                    ok += 1
                else:
                    no += 1
            except redis.RedisError as e:
                last = e
        if ok >= self.quorum:
            return self._claimed()
        if no > len(self.clients) - self.quorum:
            raise NotHeld("extend: a majority of nodes do not hold the token")
        raise Unknown(f"extend: no majority answered: {last!r}")

    def close(self):
        pass


def new(env, events):
    return SeedRedlock(env, events)
