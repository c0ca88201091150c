"""py-seed-renewable: the seed's watchdog lock (lockimpl/renewable.go is
the fixed one).

py-seed-single plus a watchdog thread per lease that extends it every 30%
of the TTL (LOCKSTORM_RENEW_MS when set) and sends a renewed event for
each renewal.

The seed's flaw, kept on purpose: when a renewal fails (the key is gone or
another's, a timeout, a lost link) or the validity runs out before one
could be made, the watchdog only logs the loss on stderr and stops. The
holder is never told (no lost event), so it goes on working on a lease it
no longer has. lockimpl's Renewable closes the lease's Done channel, which
`lockstorm client` turns into a lost event.
"""
import threading

from lockstorm_lock import SingleNode
from lockstorm_watchdog import Watchdog

RENEW_FRACTION = 0.3


class SeedRenewable(SingleNode):
    def __init__(self, env, events):
        super().__init__(env, events)
        self.every = (env.renew_ms or RENEW_FRACTION * env.ttl_ms) / 1000
        self._mu = threading.Lock()
        self._dogs = {}  # token -> Watchdog

    def acquire(self, key, deadline):
        g = super().acquire(key, deadline)
        token = g.token

        def lost(reason):  # the seed's behaviour: a log line, nothing more
            self.events.log(f"py-seed-renewable: lease on {key!r} lost ({reason}); the holder is not told")

        dog = Watchdog(self.every, g.deadline, lambda: SingleNode.extend(self, key, token),
                       lambda d: self.events.renewed(key, token, d), lost)
        with self._mu:
            self._dogs[token] = dog
        return g

    def release(self, key, token):
        with self._mu:
            dog = self._dogs.pop(token, None)
        if dog:
            dog.stop()  # no renewal runs after this
        super().release(key, token)

    def extend(self, key, token):
        valid = super().extend(key, token)
        with self._mu:
            dog = self._dogs.get(token)
        if dog:
            dog.moved(valid)
        return valid

    def close(self):
        with self._mu:
            dogs, self._dogs = list(self._dogs.values()), {}
        for d in dogs:
            d.stop()


def new(env, events):
    return SeedRenewable(env, events)
