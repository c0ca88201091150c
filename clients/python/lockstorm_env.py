"""The LOCKSTORM_* environment of a process client (docs/client-protocol.md).

Times are integers of milliseconds, as the harness writes them; the
properties ending in _s are the same in seconds, as redis-py wants them.
"""
import math

import redis

NODES = "LOCKSTORM_NODES"
SLOT = "LOCKSTORM_SLOT"
TTL = "LOCKSTORM_TTL_MS"
NODE_NAMES = "LOCKSTORM_NODE_NAMES"
RENEW = "LOCKSTORM_RENEW_MS"
NODE_TIMEOUT = "LOCKSTORM_NODE_TIMEOUT_MS"

# Redlock's clock-drift allowance (package lease): 2 ms plus 1% of the TTL.
FIXED_DRIFT_MS = 2
DRIFT_FACTOR = 0.01

# The default bound of one command: TTL/10, but at least this many ms
# (a Python client's round trip costs more than a Go client's).
MIN_NODE_TIMEOUT_MS = 50


class EnvError(ValueError):
    """A missing or malformed LOCKSTORM_* variable; the message names it."""


def _positive_ms(environ, name, required):
    v = environ.get(name, "")
    if v == "" and not required:
        return None
    try:
        n = int(v)
    except ValueError:
        n = 0
    if n <= 0:
        raise EnvError(f"{name}={v!r} is not a positive number of milliseconds")
    return n


def _address(a):
    host, sep, port = a.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise EnvError(f"{NODES}: {a!r} is not host:port")
    return host, int(port)


class Env:
    """A process client's environment.

    nodes: (host, port) per node, in node order; names: the nodes' names
    (LOCKSTORM_NODE_NAMES or n1..nN); slot: the client's slot; ttl_ms: the
    lease TTL; renew_ms: the watchdog interval, None when unset (each lock
    has its own default); node_timeout_ms: the bound of one command on one
    node (LOCKSTORM_NODE_TIMEOUT_MS, default max(TTL/10, 50 ms)).
    """

    def __init__(self, environ):
        self.nodes = [_address(a.strip()) for a in environ.get(NODES, "").split(",") if a.strip()]
        if not self.nodes:
            raise EnvError(f"{NODES} is not set (host:port,... one per node)")
        slot = environ.get(SLOT, "")
        if not slot.isdigit():
            raise EnvError(f"{SLOT}={slot!r} is not a slot number")
        self.slot = int(slot)
        self.ttl_ms = _positive_ms(environ, TTL, True)
        self.renew_ms = _positive_ms(environ, RENEW, False)
        timeout = _positive_ms(environ, NODE_TIMEOUT, False)
        self.node_timeout_ms = timeout or max(self.ttl_ms // 10, MIN_NODE_TIMEOUT_MS)
        names = environ.get(NODE_NAMES, "")
        self.names = names.split(",") if names else [f"n{i + 1}" for i in range(len(self.nodes))]
        if len(self.names) != len(self.nodes):
            raise EnvError(f"{NODE_NAMES} names {len(self.names)} nodes, {NODES} has {len(self.nodes)}")

    @property
    def drift_ms(self):
        """The drift allowance a validity must leave: 2 ms + ceil(1% of TTL), at most TTL."""
        return min(FIXED_DRIFT_MS + math.ceil(DRIFT_FACTOR * self.ttl_ms), self.ttl_ms)

    @property
    def ttl_s(self):
        return self.ttl_ms / 1000

    @property
    def node_timeout_s(self):
        return self.node_timeout_ms / 1000

    def client(self, i):
        """A redis-py client of node i: every command bounded by the node
        timeout (connect, send, reply) and never retried, since a silent
        retry of a SET whose reply was lost would report "taken" for a lock
        the caller actually got."""
        host, port = self.nodes[i]
        return redis.Redis(
            host=host,
            port=port,
            socket_timeout=self.node_timeout_s,
            socket_connect_timeout=self.node_timeout_s,
            retry_on_timeout=False,
            health_check_interval=0,
        )

    def clients(self):
        """One client per node, in node order."""
        return [self.client(i) for i in range(len(self.nodes))]
