"""py-unsafe-overclaim: a deliberately broken lock, the twin of the Go
unsafe-overclaim (lockimpl/unsafe_overclaim.go).

It acquires as py-seed-single does (SET key token NX PX ttl) but counts
its lease's validity from the reply's arrival, a full TTL, however long
the winning SET took and with no allowance for clock drift. The node's TTL
started when the SET landed, so a slow reply moves the holder's deadline
past the key's expiry by the reply's delay, and a holder that uses nearly
its whole validity writes after another client took the lock.
"""
from lockstorm_lock import Grant, SingleNode, now


class UnsafeOverclaim(SingleNode):
    def acquire(self, key, deadline):
        g = super().acquire(key, deadline)
        # The bug: a correct lock's validity is send + TTL - drift.
        return Grant(g.token, now() + self.env.ttl_ms / 1000, g.fence, g.nodes)


def new(env, events):
    return UnsafeOverclaim(env, events)
