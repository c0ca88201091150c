package cluster

import "context"

// LinkFaults gives a provider the client-facing and link-fault half of
// the Cluster interface by delegation to its link engine (Proxies). A
// provider embeds it and adds the node half (AdminAddr, Pause, Kill, ...).
type LinkFaults struct{ proxies *Proxies }

// NewLinkFaults delegates to p.
func NewLinkFaults(p *Proxies) LinkFaults { return LinkFaults{p} }

// Proxies gives access to the link manager (e.g. Faulty for reports).
func (f LinkFaults) Proxies() *Proxies { return f.proxies }

// Clients lists the client names in order.
func (f LinkFaults) Clients() []string { return f.proxies.Clients() }

// Addr is the proxy address a client dials to reach a node or upstream.
func (f LinkFaults) Addr(client, target string) (string, error) {
	return f.proxies.Addr(client, target)
}

// Cut drops all data on the links both ways until Heal (see Proxies.Cut).
func (f LinkFaults) Cut(ctx context.Context, links []Link) error { return f.proxies.Cut(ctx, links) }

// Heal removes cuts from the links.
func (f LinkFaults) Heal(ctx context.Context, links []Link) error { return f.proxies.Heal(ctx, links) }

// AddLatency delays data on the links (see Proxies.AddLatency).
func (f LinkFaults) AddLatency(ctx context.Context, links []Link, l Latency) error {
	return f.proxies.AddLatency(ctx, links, l)
}

// RemoveLatency removes latency from the links.
func (f LinkFaults) RemoveLatency(ctx context.Context, links []Link) error {
	return f.proxies.RemoveLatency(ctx, links)
}

// Freeze holds every byte of the client's links (see Proxies.Freeze).
func (f LinkFaults) Freeze(ctx context.Context, client string) error {
	return f.proxies.Freeze(ctx, client)
}

// Thaw delivers what Freeze held and lets data flow again.
func (f LinkFaults) Thaw(ctx context.Context, client string) error {
	return f.proxies.Thaw(ctx, client)
}
