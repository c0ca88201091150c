package cluster

import (
	"context"
	"fmt"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
)

// Retarget points every client's proxy to target at a new upstream
// address, as a virtual IP moves after a failover. toxiproxy cannot change
// a running proxy's upstream, so each proxy is stopped (which closes every
// connection through it: clients see their connection drop and must
// reconnect), given the new upstream, and started again on the same
// address. Toxics stay on the proxy, so link faults survive the move.
// Retargeting to the current upstream does nothing. Only proxies in this
// process (NewProxies) can be retargeted.
func (p *Proxies) Retarget(ctx context.Context, target, upstream string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.known(p.targets, target, ErrUnknownTarget); err != nil {
		return err
	}
	for _, c := range p.clients {
		ep, err := embedded(p.links[Link{Client: c, Target: target}])
		if err != nil {
			return err
		}
		// Update stops the proxy when Listen or Upstream differ, then
		// starts it because Enabled is asked for.
		in := &toxiproxy.Proxy{Listen: ep.addr, Upstream: upstream, Enabled: true}
		if err := ep.px.Update(in); err != nil {
			return fmt.Errorf("cluster: retarget %s to %s: %w", ep.px.Name, upstream, err)
		}
	}
	return nil
}

// Upstream is the address the clients' proxies to target lead to.
func (p *Proxies) Upstream(target string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	px, err := p.lookup(Link{Client: p.clients[0], Target: target})
	if err != nil {
		return "", err
	}
	ep, err := embedded(px)
	if err != nil {
		return "", err
	}
	ep.px.Lock()
	defer ep.px.Unlock()
	return ep.px.Upstream, nil
}

// embedded returns the in-process proxy behind px, or ErrUnsupported.
func embedded(px toxicProxy) (*embeddedProxy, error) {
	ep, ok := px.(*embeddedProxy)
	if !ok {
		return nil, fmt.Errorf("%w: only proxies in this process can be retargeted", ErrUnsupported)
	}
	return ep, nil
}
