package cluster

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Proxies is the link engine: one toxiproxy proxy per (client, target)
// link and the faults on them (cut, latency, freeze, heal). Its proxies
// run in this process (NewProxies: the local and docker providers) or on
// a toxiproxy server reached over HTTP (NewRemoteProxies: the external
// provider); the faults are the same toxics either way. The proxies are
// the truth for which toxics exist; only frozen clients are remembered,
// so that links added later are frozen too. All methods are safe for
// concurrent use.
type Proxies struct {
	srv     proxyServer
	clients []string

	mu      sync.Mutex
	targets []string
	links   map[Link]toxicProxy
	frozen  map[string]bool // clients currently frozen
	closed  bool
}

// proxyServer is where a link engine's proxies run.
type proxyServer interface {
	// create starts a proxy named name (unique on the server) to upstream
	// on a free port.
	create(name, upstream string) (toxicProxy, error)
	// remove stops one proxy, closing its connections.
	remove(px toxicProxy) error
	// freeze is the toxic that holds a frozen link's data.
	freeze() toxicSpec
	// close stops every proxy of the engine.
	close(pxs []toxicProxy) error
}

// newProxies is an empty link engine on srv for the given clients, whose
// names must be non-empty and distinct.
func newProxies(srv proxyServer, clients []string) (*Proxies, error) {
	if err := checkClients(clients); err != nil {
		return nil, err
	}
	return &Proxies{
		srv:     srv,
		clients: slices.Clone(clients),
		links:   map[Link]toxicProxy{},
		frozen:  map[string]bool{},
	}, nil
}

// checkClients refuses an empty client list and invalid or repeated names.
func checkClients(clients []string) error {
	if len(clients) == 0 {
		return errors.New("cluster: at least one client is required")
	}
	seen := map[string]bool{}
	for _, c := range clients {
		if c == "" || strings.ContainsAny(c, " \t\n/") {
			return fmt.Errorf("cluster: invalid client name %q", c)
		}
		if seen[c] {
			return fmt.Errorf("cluster: duplicate client name %q", c)
		}
		seen[c] = true
	}
	return nil
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
// the target name, named <client>-><target> (after the server's prefix).
// A client that is frozen gets its new link frozen too. On error the
// proxies it created are removed.
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
		px, err := p.srv.create(c+"->"+target, upstream)
		if err == nil && p.frozen[c] {
			if err = ensurePair(px, freezeToxics, p.srv.freeze()); err != nil {
				_ = p.srv.remove(px)
			}
		}
		if err != nil {
			for _, a := range added {
				_ = p.srv.remove(p.links[a])
				delete(p.links, a)
			}
			return err
		}
		l := Link{Client: c, Target: target}
		p.links[l] = px
		added = append(added, l)
	}
	p.targets = append(p.targets, target)
	return nil
}

// Addr is the proxy address a client dials to reach a target.
func (p *Proxies) Addr(client, target string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	px, err := p.lookup(Link{Client: client, Target: target})
	if err != nil {
		return "", err
	}
	return px.listen(), nil
}

// lookup finds a link, naming what is unknown. Called with mu held.
func (p *Proxies) lookup(l Link) (toxicProxy, error) {
	if p.closed {
		return nil, ErrStopped
	}
	if px, ok := p.links[l]; ok {
		return px, nil
	}
	if !slices.Contains(p.clients, l.Client) {
		return nil, fmt.Errorf("%w %q", ErrUnknownClient, l.Client)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownTarget, l.Target)
}

// known checks, with mu held, that the engine is open and that name is
// one of names (else an error wrapping unknown, naming it).
func (p *Proxies) known(names []string, name string, unknown error) error {
	if p.closed {
		return ErrStopped
	}
	if !slices.Contains(names, name) {
		return fmt.Errorf("%w %q", unknown, name)
	}
	return nil
}

// eachLink resolves every link first (all must exist, or nothing
// changes), then applies f to each proxy under the lock, stopping at the
// first error.
func (p *Proxies) eachLink(links []Link, f func(toxicProxy) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	pxs := make([]toxicProxy, 0, len(links))
	for _, l := range links {
		px, err := p.lookup(l)
		if err != nil {
			return err
		}
		pxs = append(pxs, px)
	}
	for _, px := range pxs {
		if err := f(px); err != nil {
			return err
		}
	}
	return nil
}

// Cut drops every byte on the links in both directions until Heal, with
// toxiproxy's timeout toxic (timeout 0): connections stay open, requests
// and replies vanish, clients time out. New connections are accepted and
// then hear nothing. Healing closes the connections that were cut, as
// toxiproxy does when a timeout toxic is removed: their byte streams have
// lost data, and clients reconnect. Cutting a cut link does nothing.
func (p *Proxies) Cut(ctx context.Context, links []Link) error {
	return p.eachLink(links, func(px toxicProxy) error { return ensurePair(px, cutToxics, cutSpec) })
}

// Heal removes a cut from the links; healing an uncut link does nothing.
func (p *Proxies) Heal(ctx context.Context, links []Link) error {
	return p.eachLink(links, func(px toxicProxy) error { removePair(px, cutToxics); return nil })
}

// AddLatency delays every chunk of data on the links by l.Delay ± l.Jitter
// (toxiproxy's resolution is a millisecond) on l.Stream. It replaces any
// latency already on those links.
func (p *Proxies) AddLatency(ctx context.Context, links []Link, l Latency) error {
	l, err := checkLatency(l)
	if err != nil {
		return err
	}
	return p.eachLink(links, func(px toxicProxy) error { return setLatency(px, l) })
}

// RemoveLatency removes latency from the links; data it was delaying is
// delivered at once.
func (p *Proxies) RemoveLatency(ctx context.Context, links []Link) error {
	return p.eachLink(links, func(px toxicProxy) error { removePair(px, latencyToxics); return nil })
}

// Freeze holds every byte on all of the client's links, both directions,
// without dropping any, including links added later by AddTarget, until
// Thaw. In this process it uses lockstorm's hold toxic (see holdToxic); on
// a toxiproxy server, which lacks it, day-long latency toxics, which hold
// data without losing it but release the chunk each frozen stream was
// delaying when another fault on the link is added or removed. Freezing a
// frozen client does nothing.
func (p *Proxies) Freeze(ctx context.Context, client string) error {
	spec := p.srv.freeze()
	return p.ofClient(client, true, func(px toxicProxy) error { return ensurePair(px, freezeToxics, spec) })
}

// Thaw delivers everything Freeze held on the client's links, in order,
// and lets data flow again. Thawing a client that is not frozen does nothing.
func (p *Proxies) Thaw(ctx context.Context, client string) error {
	return p.ofClient(client, false, func(px toxicProxy) error { removePair(px, freezeToxics); return nil })
}

// ofClient records the client as frozen or not (for links added later)
// and applies f to each of its links, stopping at the first error.
func (p *Proxies) ofClient(client string, frozen bool, f func(toxicProxy) error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.known(p.clients, client, ErrUnknownClient); err != nil {
		return err
	}
	if frozen {
		p.frozen[client] = true
	} else {
		delete(p.frozen, client)
	}
	for l, px := range p.links {
		if l.Client == client {
			if err := f(px); err != nil {
				return err
			}
		}
	}
	return nil
}

// HealAll removes every fault from every link (see healProxy) and forgets
// freezes. After Close it returns ErrStopped.
func (p *Proxies) HealAll(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrStopped
	}
	clear(p.frozen)
	var errs []error
	for _, px := range p.links {
		errs = append(errs, healProxy(px))
	}
	return errors.Join(errs...)
}

// ListFaulty lists the links whose proxies carry any toxic, whatever
// added it, sorted; an error when a proxy cannot be asked.
func (p *Proxies) ListFaulty() ([]Link, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []Link
	for l, px := range p.links {
		n, err := px.count()
		if err != nil {
			return nil, err
		}
		if n > 0 {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b Link) int {
		return strings.Compare(a.Client+"\x00"+a.Target, b.Client+"\x00"+b.Target)
	})
	return out, nil
}

// Faulty lists the links that currently carry any fault, for reports and
// for tests that check a heal; nil when the proxies cannot be asked.
func (p *Proxies) Faulty() []Link {
	out, _ := p.ListFaulty()
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
	pxs := make([]toxicProxy, 0, len(p.links))
	for l, px := range p.links {
		pxs = append(pxs, px)
		delete(p.links, l)
	}
	return p.srv.close(pxs)
}
