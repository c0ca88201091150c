#!/usr/bin/env python3
"""lockstorm zoo adapter: django-redis's lock (Debian python3-django-redis
5.2.0, Django 3.2, python3-redis 4.3.4): `cache.lock(...)`, as
django-redis's README shows ("with cache.lock('somekey'): ..."), which is
redis-py's Lock on django-redis's connection.

Django is configured in the adapter, minimally: one cache, "default",
django_redis.cache.RedisCache at redis://HOST:PORT/0 with
CLIENT_CLASS django_redis.client.DefaultClient and SOCKET_TIMEOUT /
SOCKET_CONNECT_TIMEOUT the node timeout.

acquire: cache.lock(key, timeout=TTL, blocking_timeout=timeout_ms,
         thread_local=False).acquire() (sleep: django-redis's default 0.1 s);
         True ok, False fail. thread_local=False: the release comes on
         another request thread.
extend:  lock.extend(TTL, replace_ttl=True).
release: lock.release().
token: the lock's own token (lock.local.token), the value stored under
django-redis's key (make_key: ":1:<key>").
validity: TTL - drift from when the winning SET NX PX was sent (the
adapter wraps the lock's do_acquire only to note that time).
A LockError (LockNotOwnedError included) is certain: fail. A connection
error or timeout is unknown: info.
"""
import logging
import os
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "clients", "python"))

from lockstorm_env import Env, EnvError  # noqa: E402
from lockstorm_lock import Grant, NotHeld, NotObtained, now, valid_until  # noqa: E402
from lockstorm_protocol import Server  # noqa: E402

from redis.exceptions import LockError  # noqa: E402


def seconds(ms):
    """ms as redis-py's seconds, such that its int(seconds * 1000) gives ms back."""
    return (ms + 0.25) / 1000


def django_cache(env):
    import django
    from django.conf import settings

    host, port = env.nodes[0]
    settings.configure(CACHES={"default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": f"redis://{host}:{port}/0",
        "OPTIONS": {
            "CLIENT_CLASS": "django_redis.client.DefaultClient",
            "SOCKET_TIMEOUT": env.node_timeout_s,
            "SOCKET_CONNECT_TIMEOUT": env.node_timeout_s,
        },
    }})
    django.setup()
    from django.core.cache import cache
    return cache


class DjangoRedisLock:
    def __init__(self, env, events):
        self.env, self.events = env, events
        self.cache = django_cache(env)
        self.node = env.names[0]
        self._mu = threading.Lock()
        self._held = {}  # token -> (key, redis-py Lock)

    def acquire(self, key, deadline):
        lock = self.cache.lock(key, timeout=seconds(self.env.ttl_ms),
                               blocking_timeout=max(deadline - now(), 0), thread_local=False)
        sent = [0.0]
        do_acquire = lock.do_acquire

        def timed_do_acquire(token):
            sent[0] = now()
            return do_acquire(token)

        lock.do_acquire = timed_do_acquire
        if not lock.acquire():
            raise NotObtained("django-redis cache.lock().acquire: not obtained within blocking_timeout")
        token = lock.local.token.decode()
        with self._mu:
            self._held[token] = (key, lock)
        return Grant(token, valid_until(self.env, sent[0]), 0, [self.node])

    def _lookup(self, key, token, pop):
        with self._mu:
            h = self._held.get(token)
            if h is None or h[0] != key:
                raise NotHeld("not held: this client has no lease with that key and token")
            if pop:
                del self._held[token]
            return h[1]

    def extend(self, key, token):
        lock = self._lookup(key, token, pop=False)
        sent = now()
        try:
            lock.extend(seconds(self.env.ttl_ms), replace_ttl=True)
        except LockError as e:
            raise NotHeld(f"Lock.extend: {e}") from e
        valid = valid_until(self.env, sent)
        if now() >= valid:
            raise NotHeld("Lock.extend: validity elapsed before the answer")
        return valid

    def release(self, key, token):
        lock = self._lookup(key, token, pop=True)
        try:
            lock.release()
        except LockError as e:
            raise NotHeld(f"Lock.release: {e}") from e

    def close(self):
        pass


def main():
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING)
    try:
        env = Env(os.environ)
        Server(env, DjangoRedisLock).serve()
    except EnvError as e:
        print(f"django-redis-lock client: {e}", file=sys.stderr, flush=True)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
