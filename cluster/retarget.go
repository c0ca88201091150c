package cluster

import (
	"context"
	"fmt"
	"slices"
	"sync"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// Retarget points every client's proxy to target at a new upstream
// address, as a virtual IP moves after a failover. toxiproxy cannot change
// a running proxy's upstream, so each proxy is stopped (which closes every
// connection through it: clients see their connection drop and must
// reconnect), given the new upstream, and started again on the same
// address. Toxics stay on the proxy, so link faults survive the move.
// Retargeting to the current upstream does nothing.
func (p *Proxies) Retarget(ctx context.Context, target, upstream string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrStopped
	}
	if !slices.Contains(p.targets, target) {
		return fmt.Errorf("%w %q", ErrUnknownTarget, target)
	}
	for _, c := range p.clients {
		pl := p.links[Link{Client: c, Target: target}]
		// Update stops the proxy when Listen or Upstream differ, then
		// starts it because Enabled is asked for.
		in := &toxiproxy.Proxy{Listen: pl.addr, Upstream: upstream, Enabled: true}
		if err := pl.proxy.Update(in); err != nil {
			return fmt.Errorf("cluster: retarget %s to %s: %w", pl.proxy.Name, upstream, err)
		}
	}
	return nil
}

// Upstream is the address the clients' proxies to target lead to.
func (p *Proxies) Upstream(target string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.clients) == 0 {
		return "", ErrUnknownClient
	}
	pl, err := p.lookup(Link{Client: p.clients[0], Target: target})
	if err != nil {
		return "", err
	}
	pl.proxy.Lock()
	defer pl.proxy.Unlock()
	return pl.proxy.Upstream, nil
}

// linkProxy is one stand-alone proxy outside any client's links (the
// replication link), in its own embedded toxiproxy server, with its own
// cut and latency.
type linkProxy struct {
	srv  *toxiproxy.ApiServer
	px   *toxiproxy.Proxy
	addr string

	mu      sync.Mutex
	cut     bool
	latency bool
}

// newLinkProxy starts a proxy named name on a free 127.0.0.1 port to upstream.
func newLinkProxy(name, upstream string) (*linkProxy, error) {
	srv := toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())
	px := toxiproxy.NewProxy(srv, name, "127.0.0.1:0", upstream)
	if err := srv.Collection.Add(px, true); err != nil {
		return nil, fmt.Errorf("cluster: proxy %s: %w", name, err)
	}
	px.Lock()
	addr := px.Listen
	px.Unlock()
	return &linkProxy{srv: srv, px: px, addr: addr}, nil
}

// Cut drops every byte both ways (see Proxies.Cut).
func (lp *linkProxy) Cut() error {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	if lp.cut {
		return nil
	}
	if err := addToxic(lp.px, toxCutUp, "upstream", "timeout", `{"timeout":0}`); err != nil {
		return err
	}
	if err := addToxic(lp.px, toxCutDown, "downstream", "timeout", `{"timeout":0}`); err != nil {
		removeToxic(lp.px, toxCutUp)
		return err
	}
	lp.cut = true
	return nil
}

// Delay replaces the link's latency (see Proxies.AddLatency).
func (lp *linkProxy) Delay(l Latency) error {
	l, err := checkLatency(l)
	if err != nil {
		return err
	}
	lp.mu.Lock()
	defer lp.mu.Unlock()
	removeToxic(lp.px, toxLatUp)
	removeToxic(lp.px, toxLatDown)
	attrs := fmt.Sprintf(`{"latency":%d,"jitter":%d}`, l.Delay.Milliseconds(), l.Jitter.Milliseconds())
	if l.Stream != Downstream {
		if err := addToxic(lp.px, toxLatUp, "upstream", "latency", attrs); err != nil {
			return err
		}
	}
	if l.Stream != Upstream {
		if err := addToxic(lp.px, toxLatDown, "downstream", "latency", attrs); err != nil {
			removeToxic(lp.px, toxLatUp)
			return err
		}
	}
	lp.latency = true
	return nil
}

// Heal removes the cut and the latency; cut connections are closed (as
// toxiproxy does when a timeout toxic goes) and their ends reconnect.
func (lp *linkProxy) Heal() {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	removeToxic(lp.px, toxLatUp)
	removeToxic(lp.px, toxLatDown)
	removeToxic(lp.px, toxCutUp)
	removeToxic(lp.px, toxCutDown)
	lp.cut, lp.latency = false, false
}

// Faulty reports whether the link carries a fault.
func (lp *linkProxy) Faulty() bool {
	lp.mu.Lock()
	defer lp.mu.Unlock()
	return lp.cut || lp.latency || len(lp.px.Toxics.GetToxicArray()) > 0
}

// Close stops the proxy and closes its connections.
func (lp *linkProxy) Close() error {
	lp.Heal()
	return lp.srv.Collection.Clear()
}
