"""py-seed-fair: the seed's FIFO lock, as lockimpl/fairnaive.go keeps it.

Waiters queue in a sorted set by arrival: one Lua step joins the queue
(key + ":queue", scored by INCR of key + ":seq") and takes the lock (a
plain token key with a TTL) when the caller is the head and the key is
free. The waiter polls that step with backoff until it holds the lock or
timeout_ms passes; a waiter that gives up leaves the queue. Release is
the compare-and-delete; the lock has no extend (extend answers fail).

The seed's flaw, kept on purpose: nothing ever drops a waiter that died.
A waiter that crashes while queued stays in the queue, and once it is the
head it blocks everyone behind it forever (lockimpl/fair.go prunes
waiters that stop polling).
"""
import redis

from lockstorm_lock import (Backoff, Grant, NotHeld, NotObtained, SingleNode, Unknown, new_token,
                            now, time_for_attempt, valid_until)

# KEYS[1] lock key; KEYS[2] queue zset; KEYS[3] arrival counter.
# ARGV[1] the caller's token; ARGV[2] TTL ms.
# Returns {1, 0} when the caller holds the lock, {0, position} otherwise.
STEP_LUA = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {1, 0}
end
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  redis.call('ZADD', KEYS[2], redis.call('INCR', KEYS[3]), ARGV[1])
end
local head = redis.call('ZRANGE', KEYS[2], 0, 0)[1]
if head == ARGV[1] and not holder then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  redis.call('ZREM', KEYS[2], ARGV[1])
  return {1, 0}
end
return {0, redis.call('ZRANK', KEYS[2], ARGV[1])}
"""


def queue_key(key):
    return key + ":queue"


def arrival_key(key):
    return key + ":seq"


class SeedFair(SingleNode):
    def __init__(self, env, events):
        super().__init__(env, events)
        self._step = self.r.register_script(STEP_LUA)

    def _leave(self, key, token):
        """Leaves the queue; whether the node answered."""
        try:
            self.r.zrem(queue_key(key), token)
            return True
        except redis.RedisError:
            return False

    def acquire(self, key, deadline):
        token, backoff = new_token(), Backoff(self.env)
        keys = [key, queue_key(key), arrival_key(key)]
        while True:
            if not time_for_attempt(self.env, deadline):
                break
            sent = now()
            try:
                got, _ = self._step(keys=keys, args=[token, self.env.ttl_ms])
            except redis.RedisError as e:
                self._leave(key, token)
                self.cleanup(key, token)
                raise Unknown(f"acquire: {e!r}") from e
            if got == 1:
                valid = valid_until(self.env, sent)
                if now() < valid:
                    return Grant(token, valid, 0, [self.node])
                self.cleanup(key, token)
                raise Unknown("acquire: granted after its validity")
            if not backoff.sleep(deadline):
                break
        if not self._leave(key, token):
            raise NotObtained("lock not obtained before timeout_ms (leaving the queue failed: still queued)")
        raise NotObtained("lock not obtained before timeout_ms")

    def extend(self, key, token):
        raise NotHeld("py-seed-fair cannot extend (the seed's fair lock has no extend)")


def new(env, events):
    return SeedFair(env, events)
