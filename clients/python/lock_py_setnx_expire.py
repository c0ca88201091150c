"""py-setnx-expire: a deliberately broken lock, the "common mistake".

SETNX key token, then, in a second round trip, PEXPIRE key ttl: the TTL is
set after the key. A client that dies between the two commands leaves a
key without expiry, and nobody ever takes the lock again (Redis's SET
documentation: "SET ... NX PX" replaces the SETNX + EXPIRE pattern for
exactly this reason). Release and extend are the seed's (a Lua
compare-and-delete, a Lua compare-and-pexpire).

It is among the broken locks to show a bug class that random faults
rarely reach: a client crash must land between the two commands, which a
crash aimed at the moment the key exists without an expiry does.
"""
import redis

from lockstorm_lock import SingleNode, Unknown


class SetnxExpire(SingleNode):
    def attempt(self, key, token):
        if not self.r.setnx(key, token):
            return False, 0
        try:
            self.r.pexpire(key, self.env.ttl_ms)
        except redis.RedisError as e:
            self.cleanup(key, token)
            raise Unknown(f"acquire: set, but its PEXPIRE failed: {e!r}") from e
        return True, 0


def new(env, events):
    return SetnxExpire(env, events)
