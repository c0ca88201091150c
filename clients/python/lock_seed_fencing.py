"""py-seed-fencing: the seed's fenced lock.

SET key token NX PX ttl, then, in a second round trip, INCR of the lock's
fencing counter (key + ":fence", as lockimpl/fenced.go names it, never
expiring); the counter's new value is the lease's fence.

The seed's flaw, kept on purpose: the two steps are not atomic
(lockimpl/fenced.go does both in one Lua script). A holder whose INCR is
delayed past its lease can draw a fence higher than the next holder's, so
an older holder's writes beat a newer one's at a fenced resource. An
INCR whose outcome is unknown makes the acquire's outcome unknown (info):
the lock may be held with no known fence.
"""
import redis

from lockstorm_lock import SingleNode, Unknown


def fence_key(key):
    """The lock's fencing counter."""
    return key + ":fence"


class SeedFencing(SingleNode):
    def attempt(self, key, token):
        if not self.r.set(key, token, nx=True, px=self.env.ttl_ms):
            return False, 0
        try:
            return True, int(self.r.incr(fence_key(key)))
        except redis.RedisError as e:
            self.cleanup(key, token)
            raise Unknown(f"acquire: granted, but the fence's INCR failed: {e!r}") from e


def new(env, events):
    return SeedFencing(env, events)
