package cluster

import "context"

// proxyFaults gives a provider whose proxies run in the harness process
// (an embedded Proxies) the client-facing and link-fault half of the
// Cluster interface by delegation. A provider embeds it and adds the node
// half (AdminAddr, Pause, Kill, ...).
type proxyFaults struct{ proxies *Proxies }

// Proxies gives access to the link manager (e.g. Faulty for reports).
func (f proxyFaults) Proxies() *Proxies { return f.proxies }

// Clients lists the client names in order.
func (f proxyFaults) Clients() []string { return f.proxies.Clients() }

// Addr is the proxy address a client dials to reach a node or upstream.
func (f proxyFaults) Addr(client, target string) (string, error) {
	return f.proxies.Addr(client, target)
}

// Cut drops all data on the links both ways until Heal (see Proxies.Cut).
func (f proxyFaults) Cut(ctx context.Context, links []Link) error { return f.proxies.Cut(ctx, links) }

// Heal removes cuts from the links.
func (f proxyFaults) Heal(ctx context.Context, links []Link) error { return f.proxies.Heal(ctx, links) }

// AddLatency delays data on the links (see Proxies.AddLatency).
func (f proxyFaults) AddLatency(ctx context.Context, links []Link, l Latency) error {
	return f.proxies.AddLatency(ctx, links, l)
}

// RemoveLatency removes latency from the links.
func (f proxyFaults) RemoveLatency(ctx context.Context, links []Link) error {
	return f.proxies.RemoveLatency(ctx, links)
}

// Freeze holds every byte of the client's links (see Proxies.Freeze).
func (f proxyFaults) Freeze(ctx context.Context, client string) error {
	return f.proxies.Freeze(ctx, client)
}

// Thaw delivers what Freeze held and lets data flow again.
func (f proxyFaults) Thaw(ctx context.Context, client string) error {
	return f.proxies.Thaw(ctx, client)
}
