package protocol

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// Environment variables the harness sets for a process client.
const (
	// EnvNodes: host:port of every node, comma-separated, in node order;
	// each is the client's own proxy to that node.
	EnvNodes = "LOCKSTORM_NODES"
	// EnvSlot: the client's slot number (0-based).
	EnvSlot = "LOCKSTORM_SLOT"
	// EnvTTL: the lease time-to-live in milliseconds.
	EnvTTL = "LOCKSTORM_TTL_MS"
	// EnvNodeNames: the nodes' names, comma-separated (optional; n1..nN).
	EnvNodeNames = "LOCKSTORM_NODE_NAMES"
	// EnvRenew: the watchdog's renewal interval in milliseconds
	// (optional; the lock's default, TTL/3).
	EnvRenew = "LOCKSTORM_RENEW_MS"
	// EnvNodeTimeout: the bound of one command on one node in
	// milliseconds (optional; the lock's default).
	EnvNodeTimeout = "LOCKSTORM_NODE_TIMEOUT_MS"
)

// Env is a process client's environment, read by ReadEnv.
type Env struct {
	Nodes []string
	Slot  int
	// Options carry TTL, NodeNames, RenewEvery and NodeTimeout.
	Options lockimpl.Options
}

// ReadEnv reads the environment through getenv (os.Getenv). A missing
// or malformed variable is an error naming it.
func ReadEnv(getenv func(string) string) (Env, error) {
	var e Env
	for _, a := range strings.Split(getenv(EnvNodes), ",") {
		if a = strings.TrimSpace(a); a != "" {
			e.Nodes = append(e.Nodes, a)
		}
	}
	if len(e.Nodes) == 0 {
		return e, fmt.Errorf("%s is not set (host:port,... one per node)", EnvNodes)
	}
	slot, err := strconv.Atoi(getenv(EnvSlot))
	if err != nil || slot < 0 {
		return e, fmt.Errorf("%s=%q is not a slot number", EnvSlot, getenv(EnvSlot))
	}
	e.Slot = slot
	ms := map[string]*time.Duration{EnvTTL: &e.Options.TTL, EnvRenew: &e.Options.RenewEvery, EnvNodeTimeout: &e.Options.NodeTimeout}
	for name, d := range ms {
		v := getenv(name)
		if v == "" && name != EnvTTL {
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return e, fmt.Errorf("%s=%q is not a positive number of milliseconds", name, v)
		}
		*d = time.Duration(n) * time.Millisecond
	}
	if v := getenv(EnvNodeNames); v != "" {
		e.Options.NodeNames = strings.Split(v, ",")
		if len(e.Options.NodeNames) != len(e.Nodes) {
			return e, fmt.Errorf("%s names %d nodes, %s has %d", EnvNodeNames, len(e.Options.NodeNames), EnvNodes, len(e.Nodes))
		}
	}
	return e, nil
}

// NewLock builds the named lock (lockimpl.New) on one fresh connection
// per node, with the options the harness gives in-process locks. close
// ends the connections.
func (e Env) NewLock(name string) (lock lockimpl.Locker, close func(), err error) {
	rcs := make([]redis.UniversalClient, len(e.Nodes))
	for i, a := range e.Nodes {
		// As the harness's own slots: no hidden retries, RESP2, 4 links.
		o := lockimpl.ClientOptions(a)
		o.PoolSize, o.Protocol = 4, 2
		rcs[i] = redis.NewClient(o)
	}
	close = func() {
		for _, c := range rcs {
			c.Close()
		}
	}
	lock, err = lockimpl.New(name, rcs, e.Options.WithDefaults(len(rcs)))
	if err != nil {
		close()
		return nil, nil, err
	}
	return lock, close, nil
}
