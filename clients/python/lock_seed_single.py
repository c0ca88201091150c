"""py-seed-single: the seed's single-instance lock (lockimpl/single.go).

SET key token NX PX ttl to acquire, retried with jittered backoff until
timeout_ms; a Lua compare-and-delete to release; a Lua compare-and-pexpire
to extend. Nothing renews a lease: a holder that runs past its validity
is no longer protected.
"""
from lockstorm_lock import SingleNode


def new(env, events):
    return SingleNode(env, events)
