// Package cluster starts Redis nodes and puts every client's link to them
// behind a toxiproxy proxy, so that faults can be injected per link. A
// provider (local processes, docker containers, external endpoints) hides
// how nodes run; the Cluster interface is what workloads and the nemesis use.
package cluster

import (
	"context"
	"errors"
	"time"
)

// Persistence is how a node keeps data across a crash.
type Persistence string

// Persistence modes. None loses every key on restart; AOFEverysec may lose
// the last second; AOFAlways fsyncs every write.
const (
	PersistNone        Persistence = "none"
	PersistAOFEverysec Persistence = "aof-everysec"
	PersistAOFAlways   Persistence = "aof-always"
)

// ParsePersistence checks a persistence name.
func ParsePersistence(s string) (Persistence, error) {
	switch p := Persistence(s); p {
	case PersistNone, PersistAOFEverysec, PersistAOFAlways:
		return p, nil
	}
	return "", errors.New("persistence must be one of none, aof-everysec, aof-always, got " + quote(s))
}

func quote(s string) string { return "\"" + s + "\"" }

// DefaultDockerImage is the Redis image of the docker provider
// (cluster/docker) when none is given. Where no registry is reachable,
// build lockstorm/redis:7 with docker/build-redis-image.sh and use that
// instead. It is named here so that config can name it without linking
// the Docker client.
const DefaultDockerImage = "redis:7"

// Stream selects the direction of a link a toxic acts on.
type Stream string

// Streams: Upstream is client to server (requests), Downstream server to
// client (replies), Both is both.
const (
	Upstream   Stream = "upstream"
	Downstream Stream = "downstream"
	Both       Stream = "both"
)

// Link is one client's connection path to one target (a Redis node or an
// extra upstream such as the protected resource).
type Link struct {
	Client string
	Target string
}

// Latency is a delay added to a link: every chunk of data waits Delay plus
// a uniformly drawn amount in [-Jitter, +Jitter].
type Latency struct {
	Delay  time.Duration
	Jitter time.Duration
	Stream Stream // default Both
}

// Sentinel errors.
var (
	ErrUnknownNode   = errors.New("cluster: unknown node")
	ErrUnknownClient = errors.New("cluster: unknown client")
	ErrUnknownTarget = errors.New("cluster: unknown target")
	ErrUnsupported   = errors.New("cluster: operation not supported by this provider")
	ErrStopped       = errors.New("cluster: stopped")
	ErrNoRedis       = errors.New("cluster: redis-server not found")
)

// Cluster is a set of Redis nodes reached by named clients through proxies.
// Node names are "n1".."nN"; client names are chosen by the caller.
// Every method is safe for concurrent use.
type Cluster interface {
	// Nodes lists the node names in order.
	Nodes() []string
	// Clients lists the client names in order.
	Clients() []string
	// Addr is the proxy address ("127.0.0.1:port") a client dials to reach a
	// target (a node or an extra upstream). Clients must only use these.
	Addr(client, target string) (string, error)
	// AdminAddr is a node's own address, bypassing every proxy: for the
	// harness's inspection and for fault emulation, never for clients.
	AdminAddr(node string) (string, error)
	// AddUpstream registers an extra target (e.g. the protected resource at
	// addr) and creates a proxy to it for every client.
	AddUpstream(ctx context.Context, name, addr string) error

	// Cut drops all data on the links, both ways, until healed: a partition.
	Cut(ctx context.Context, links []Link) error
	// Heal removes a cut from the links.
	Heal(ctx context.Context, links []Link) error
	// AddLatency delays data on the links.
	AddLatency(ctx context.Context, links []Link, l Latency) error
	// RemoveLatency removes latency from the links.
	RemoveLatency(ctx context.Context, links []Link) error
	// Freeze holds every byte on all of a client's links, both ways, without
	// dropping it: a stop-the-world pause as its peers see it.
	Freeze(ctx context.Context, client string) error
	// Thaw delivers everything held by Freeze and lets data flow again.
	Thaw(ctx context.Context, client string) error

	// Pause stops a node's process (SIGSTOP, docker pause); Resume continues it.
	Pause(ctx context.Context, node string) error
	Resume(ctx context.Context, node string) error
	// Kill ends nodes abruptly (SIGKILL); Restart starts them again on
	// the same address with the same persistence mode and data directory.
	// Several nodes go down (or come back) at once, not one after another:
	// a lease's quorum is lost or regained within one process start,
	// however busy the machine.
	Kill(ctx context.Context, nodes ...string) error
	Restart(ctx context.Context, nodes ...string) error

	// HealAll removes every fault: cuts, latency, freezes, pauses, and
	// restarts killed nodes.
	HealAll(ctx context.Context) error
	// Stop heals, ends every node and proxy, and removes temporary files
	// (unless the provider was asked to keep them). Safe to call twice.
	Stop() error
}

// Links returns every link of a client to the given targets.
func Links(client string, targets ...string) []Link {
	out := make([]Link, 0, len(targets))
	for _, t := range targets {
		out = append(out, Link{Client: client, Target: t})
	}
	return out
}

// NodeLinks returns the links from every client to a target.
func NodeLinks(c Cluster, target string) []Link {
	var out []Link
	for _, cl := range c.Clients() {
		out = append(out, Link{Client: cl, Target: target})
	}
	return out
}
