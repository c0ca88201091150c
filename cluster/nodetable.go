package cluster

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/lockstorm/lockstorm/cluster/internal/host"
)

// nodeTable holds a provider's nodes in order and by name, and answers the
// Cluster methods that only need names and addresses.
type nodeTable[N Process] struct {
	nodes  []N
	byName map[string]N
}

// Nodes lists the node names n1..nN.
func (t nodeTable[N]) Nodes() []string {
	out := make([]string, len(t.nodes))
	for i, n := range t.nodes {
		out[i] = n.Name()
	}
	return out
}

// node finds a node by name.
func (t nodeTable[N]) node(name string) (N, error) {
	n, ok := t.byName[name]
	if !ok {
		var zero N
		return zero, fmt.Errorf("%w %q", ErrUnknownNode, name)
	}
	return n, nil
}

// AdminAddr is a node's own address, bypassing the proxies: for the
// harness's inspection and fault emulation, never for clients.
func (t nodeTable[N]) AdminAddr(name string) (string, error) {
	n, err := t.node(name)
	if err != nil {
		return "", err
	}
	return n.Addr(), nil
}

// addUpstream adds an extra target at addr (loopback only, and not named
// like a node) with one proxy per client.
func (t nodeTable[N]) addUpstream(ctx context.Context, p *Proxies, name, addr string) error {
	if err := checkLoopbackUpstream(name, addr); err != nil {
		return err
	}
	if _, ok := t.byName[name]; ok {
		return fmt.Errorf("cluster: upstream %q: name is a node", name)
	}
	return p.AddTarget(ctx, name, addr)
}

// control runs f on the named node while holding mu, unless *stopped: the
// process-control path (pause, kill, restart) of every provider.
func (t nodeTable[N]) control(mu *sync.Mutex, stopped *bool, name string, f func(N) error) error {
	n, err := t.node(name)
	if err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	if *stopped {
		return ErrStopped
	}
	return f(n)
}

// controlAll runs f on each named node at once, while holding mu, unless
// *stopped, and returns every error; an unknown name runs nothing.
func (t nodeTable[N]) controlAll(mu *sync.Mutex, stopped *bool, names []string, f func(N) error) error {
	ns := make([]N, len(names))
	for i, name := range names {
		n, err := t.node(name)
		if err != nil {
			return err
		}
		ns[i] = n
	}
	mu.Lock()
	defer mu.Unlock()
	if *stopped {
		return ErrStopped
	}
	errs := make([]error, len(ns))
	var wg sync.WaitGroup
	for i, n := range ns {
		wg.Go(func() { errs[i] = f(n) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

// checkLoopbackUpstream refuses an extra upstream that is not on this
// host's loopback interface: the embedded proxies must only dial there.
func checkLoopbackUpstream(name, addr string) error {
	ok, err := host.IsLoopbackAddr(addr)
	if err != nil {
		return fmt.Errorf("cluster: upstream %s: %w", name, err)
	}
	if !ok {
		return fmt.Errorf("cluster: upstream %s: only loopback addresses are proxied, got %q", name, addr)
	}
	return nil
}
