package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// Toxic names. Each fault has its own names, so faults on one link compose:
// a link can be cut, delayed and frozen at once, and each is removed alone.
const (
	toxCutUp      = "lockstorm-cut-up"
	toxCutDown    = "lockstorm-cut-down"
	toxLatUp      = "lockstorm-latency-up"
	toxLatDown    = "lockstorm-latency-down"
	toxFreezeUp   = "lockstorm-freeze-up"
	toxFreezeDown = "lockstorm-freeze-down"
)

// Proxies is an embedded, in-process toxiproxy server holding one proxy per
// (client, target) link, each listening on 127.0.0.1 on a free port. It
// implements the link faults of the Cluster interface (cut, latency,
// freeze) and is meant to be shared by every provider whose proxies run in
// the harness process (local, docker). No HTTP API is started; its log
// output is discarded. All methods are safe for concurrent use.
type Proxies struct {
	mu      sync.Mutex
	srv     *toxiproxy.ApiServer
	clients []string
	targets []string
	links   map[Link]*proxyLink
	frozen  map[string]bool // clients currently frozen
	closed  bool
}

// proxyLink is one proxy and the faults currently applied to it.
type proxyLink struct {
	proxy   *toxiproxy.Proxy
	addr    string
	cut     bool
	latency *Latency
	frozen  bool
}

// NewProxies creates an empty proxy set for the given clients, whose names
// must be non-empty and distinct.
func NewProxies(clients []string) (*Proxies, error) {
	if len(clients) == 0 {
		return nil, errors.New("cluster: at least one client is required")
	}
	seen := map[string]bool{}
	for _, c := range clients {
		if c == "" || strings.ContainsAny(c, " \t\n/") {
			return nil, fmt.Errorf("cluster: invalid client name %q", c)
		}
		if seen[c] {
			return nil, fmt.Errorf("cluster: duplicate client name %q", c)
		}
		seen[c] = true
	}
	metrics := toxiproxy.NewMetricsContainer(nil)
	return &Proxies{
		srv:     toxiproxy.NewServer(metrics, zerolog.Nop()),
		clients: slices.Clone(clients),
		links:   map[Link]*proxyLink{},
		frozen:  map[string]bool{},
	}, nil
}

// Clients lists the client names in order.
func (p *Proxies) Clients() []string { return slices.Clone(p.clients) }

// Targets lists the target names in the order they were added.
func (p *Proxies) Targets() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.targets)
}

// AddTarget creates one proxy per client to upstream ("host:port") under
// the target name. A client that is frozen gets its new link frozen too.
func (p *Proxies) AddTarget(ctx context.Context, target, upstream string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrStopped
	}
	if target == "" || strings.ContainsAny(target, " \t\n/") {
		return fmt.Errorf("cluster: invalid target name %q", target)
	}
	if slices.Contains(p.targets, target) {
		return fmt.Errorf("cluster: target %q already exists", target)
	}
	var added []Link
	for _, c := range p.clients {
		l := Link{Client: c, Target: target}
		px := toxiproxy.NewProxy(p.srv, c+"->"+target, "127.0.0.1:0", upstream)
		if err := p.srv.Collection.Add(px, true); err != nil {
			for _, a := range added {
				_ = p.srv.Collection.Remove(p.links[a].proxy.Name)
				delete(p.links, a)
			}
			return fmt.Errorf("cluster: proxy %s: %w", px.Name, err)
		}
		// Start has set Listen to the bound address.
		px.Lock()
		addr := px.Listen
		px.Unlock()
		pl := &proxyLink{proxy: px, addr: addr}
		p.links[l] = pl
		added = append(added, l)
		if p.frozen[c] {
			if err := p.freezeLink(pl); err != nil {
				return err
			}
		}
	}
	p.targets = append(p.targets, target)
	return nil
}

// Addr is the proxy address a client dials to reach a target.
func (p *Proxies) Addr(client, target string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pl, err := p.lookup(Link{Client: client, Target: target})
	if err != nil {
		return "", err
	}
	return pl.addr, nil
}

// lookup finds a link, naming what is unknown. Called with mu held.
func (p *Proxies) lookup(l Link) (*proxyLink, error) {
	if p.closed {
		return nil, ErrStopped
	}
	if pl, ok := p.links[l]; ok {
		return pl, nil
	}
	if !slices.Contains(p.clients, l.Client) {
		return nil, fmt.Errorf("%w %q", ErrUnknownClient, l.Client)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownTarget, l.Target)
}

// lookupAll resolves every link before any is changed, so that a bad name
// leaves the proxies untouched. Called with mu held.
func (p *Proxies) lookupAll(links []Link) ([]*proxyLink, error) {
	out := make([]*proxyLink, 0, len(links))
	for _, l := range links {
		pl, err := p.lookup(l)
		if err != nil {
			return nil, err
		}
		out = append(out, pl)
	}
	return out, nil
}

// addToxic adds a toxic to a proxy. Attributes are JSON.
func addToxic(px *toxiproxy.Proxy, name, stream, typ, attrs string) error {
	js := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":%s}`,
		name, typ, stream, attrs)
	if _, err := px.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
		return fmt.Errorf("cluster: add toxic %s to %s: %w", name, px.Name, err)
	}
	return nil
}

// removeToxic removes a toxic if present.
func removeToxic(px *toxiproxy.Proxy, name string) {
	if px.Toxics.GetToxic(name) != nil {
		_ = px.Toxics.RemoveToxic(context.Background(), name)
	}
}

// Cut drops every byte on the links in both directions until Heal, with
// toxiproxy's timeout toxic (timeout 0): connections stay open, requests
// and replies vanish, clients time out. New connections are accepted and
// then hear nothing. Healing closes the connections that were cut, as
// toxiproxy does when a timeout toxic is removed: their byte streams have
// lost data, and clients reconnect. Cutting a cut link does nothing.
func (p *Proxies) Cut(ctx context.Context, links []Link) error {
	return p.eachLink(links, func(pl *proxyLink) error {
		if pl.cut {
			return nil
		}
		if err := addToxic(pl.proxy, toxCutUp, "upstream", "timeout", `{"timeout":0}`); err != nil {
			return err
		}
		if err := addToxic(pl.proxy, toxCutDown, "downstream", "timeout", `{"timeout":0}`); err != nil {
			removeToxic(pl.proxy, toxCutUp)
			return err
		}
		pl.cut = true
		return nil
	})
}

// eachLink looks every link up (all must exist, or nothing changes) and
// applies f to each under the lock, stopping at the first error.
func (p *Proxies) eachLink(links []Link, f func(*proxyLink) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	pls, err := p.lookupAll(links)
	if err != nil {
		return err
	}
	for _, pl := range pls {
		if err := f(pl); err != nil {
			return err
		}
	}
	return nil
}

// Heal removes a cut from the links; healing an uncut link does nothing.
func (p *Proxies) Heal(ctx context.Context, links []Link) error {
	return p.eachLink(links, func(pl *proxyLink) error { p.healLink(pl); return nil })
}

func (p *Proxies) healLink(pl *proxyLink) {
	removeToxic(pl.proxy, toxCutUp)
	removeToxic(pl.proxy, toxCutDown)
	pl.cut = false
}

// checkLatency validates a latency and fills in the default stream.
func checkLatency(l Latency) (Latency, error) {
	if l.Delay < 0 || l.Jitter < 0 {
		return l, fmt.Errorf("cluster: latency delay and jitter must not be negative, got %v±%v", l.Delay, l.Jitter)
	}
	switch l.Stream {
	case "":
		l.Stream = Both
	case Upstream, Downstream, Both:
	default:
		return l, fmt.Errorf("cluster: latency stream must be upstream, downstream or both, got %q", l.Stream)
	}
	return l, nil
}

// AddLatency delays every chunk of data on the links by l.Delay ± l.Jitter
// (toxiproxy's resolution is a millisecond) on l.Stream. It replaces any
// latency already on those links.
func (p *Proxies) AddLatency(ctx context.Context, links []Link, l Latency) error {
	l, err := checkLatency(l)
	if err != nil {
		return err
	}
	attrs := fmt.Sprintf(`{"latency":%d,"jitter":%d}`, l.Delay.Milliseconds(), l.Jitter.Milliseconds())
	return p.eachLink(links, func(pl *proxyLink) error {
		p.removeLatencyLink(pl)
		if l.Stream != Downstream {
			if err := addToxic(pl.proxy, toxLatUp, "upstream", "latency", attrs); err != nil {
				return err
			}
		}
		if l.Stream != Upstream {
			if err := addToxic(pl.proxy, toxLatDown, "downstream", "latency", attrs); err != nil {
				removeToxic(pl.proxy, toxLatUp)
				return err
			}
		}
		lc := l
		pl.latency = &lc
		return nil
	})
}

// RemoveLatency removes latency from the links; data it was delaying is
// delivered at once.
func (p *Proxies) RemoveLatency(ctx context.Context, links []Link) error {
	return p.eachLink(links, func(pl *proxyLink) error { p.removeLatencyLink(pl); return nil })
}

func (p *Proxies) removeLatencyLink(pl *proxyLink) {
	removeToxic(pl.proxy, toxLatUp)
	removeToxic(pl.proxy, toxLatDown)
	pl.latency = nil
}

// Freeze holds every byte on all of the client's links, both directions,
// without dropping any (see holdToxic), including links added later by
// AddTarget, until Thaw. Freezing a frozen client does nothing.
func (p *Proxies) Freeze(ctx context.Context, client string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrStopped
	}
	if !slices.Contains(p.clients, client) {
		return fmt.Errorf("%w %q", ErrUnknownClient, client)
	}
	p.frozen[client] = true
	for l, pl := range p.links {
		if l.Client == client {
			if err := p.freezeLink(pl); err != nil {
				return err
			}
		}
	}
	return nil
}

func (p *Proxies) freezeLink(pl *proxyLink) error {
	if pl.frozen {
		return nil
	}
	if err := addToxic(pl.proxy, toxFreezeUp, "upstream", holdToxicType, `{}`); err != nil {
		return err
	}
	if err := addToxic(pl.proxy, toxFreezeDown, "downstream", holdToxicType, `{}`); err != nil {
		removeToxic(pl.proxy, toxFreezeUp)
		return err
	}
	pl.frozen = true
	return nil
}

// Thaw delivers everything Freeze held on the client's links, in order,
// and lets data flow again. Thawing a client that is not frozen does nothing.
func (p *Proxies) Thaw(ctx context.Context, client string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrStopped
	}
	if !slices.Contains(p.clients, client) {
		return fmt.Errorf("%w %q", ErrUnknownClient, client)
	}
	delete(p.frozen, client)
	for l, pl := range p.links {
		if l.Client == client {
			p.thawLink(pl)
		}
	}
	return nil
}

func (p *Proxies) thawLink(pl *proxyLink) {
	removeToxic(pl.proxy, toxFreezeUp)
	removeToxic(pl.proxy, toxFreezeDown)
	pl.frozen = false
}

// HealAll removes every fault from every link: freezes first (so held data
// is delivered), then latency, then cuts.
func (p *Proxies) HealAll(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	clear(p.frozen)
	for _, pl := range p.links {
		p.thawLink(pl)
		p.removeLatencyLink(pl)
		p.healLink(pl)
	}
	return nil
}

// Faulty lists the links that currently carry any fault, for reports and
// for tests that check a heal.
func (p *Proxies) Faulty() []Link {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Link
	for l, pl := range p.links {
		if pl.cut || pl.latency != nil || pl.frozen || len(pl.proxy.Toxics.GetToxicArray()) > 0 {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b Link) int {
		return strings.Compare(a.Client+"\x00"+a.Target, b.Client+"\x00"+b.Target)
	})
	return out
}

// Close heals every link, then stops every proxy, closing its connections.
// Closing twice does nothing.
func (p *Proxies) Close() error {
	_ = p.HealAll(context.Background())
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.closed = true
	return p.srv.Collection.Clear()
}
