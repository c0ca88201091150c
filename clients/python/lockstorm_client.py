#!/usr/bin/env python3
"""lockstorm's Python lock clients: one process speaking the client line
protocol (docs/client-protocol.md) for the lock named by --lock.

    lockstorm_client.py --lock NAME    serve requests on stdin, answers on stdout
    lockstorm_client.py --list         print the lock names, one a line

The environment (LOCKSTORM_NODES, LOCKSTORM_SLOT, LOCKSTORM_TTL_MS, ...)
is described in lockstorm_env.py. An unknown lock or a bad environment is
one line on stderr and exit status 2. Needs redis-py (Debian's
python3-redis).
"""
import importlib
import os
import sys

# The locks: name -> module (each module's docstring says what it does).
LOCKS = {
    "py-redispy": "lock_py_redispy",
    "py-setnx-expire": "lock_py_setnx_expire",
    "py-unsafe-overclaim": "lock_py_unsafe_overclaim",
    "py-seed-fair": "lock_seed_fair",
    "py-seed-fencing": "lock_seed_fencing",
    "py-seed-redlock": "lock_seed_redlock",
    "py-seed-renewable": "lock_seed_renewable",
    "py-seed-single": "lock_seed_single",
}

USAGE = "usage: lockstorm_client.py --lock NAME | --list"


def fatal(msg):
    print(f"lockstorm_client: {msg}", file=sys.stderr, flush=True)
    return 2


def main(argv):
    if argv == ["--list"]:
        print("\n".join(sorted(LOCKS)))
        return 0
    if len(argv) == 1 and argv[0].startswith("--lock="):
        argv = ["--lock", argv[0][len("--lock="):]]
    if len(argv) != 2 or argv[0] != "--lock":
        return fatal(USAGE)
    if argv[1] not in LOCKS:
        return fatal(f"unknown lock {argv[1]!r} (one of {', '.join(sorted(LOCKS))})")
    try:
        import redis  # noqa: F401 — before anything else, for a clear message
    except ImportError:
        return fatal("redis-py is not installed (apt-get install python3-redis)")
    from lockstorm_env import Env, EnvError
    from lockstorm_protocol import Server
    try:
        env = Env(os.environ)
    except EnvError as e:
        return fatal(str(e))
    Server(env, importlib.import_module(LOCKS[argv[1]]).new).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
