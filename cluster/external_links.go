package cluster

import (
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
)

// freezeDelayMs is the latency, in milliseconds, of the toxics that
// emulate Freeze on a toxiproxy server without lockstorm's hold toxic: a
// day, so that a frozen link delivers nothing for the life of a run.
const freezeDelayMs = 24 * 60 * 60 * 1000

// remoteLinks is the set of proxies lockstorm created on a toxiproxy
// server, one per (client, target), named <prefix><client>-><target>
// (prefix from newProxyRunPrefix), and
// the faults on them, driven through the server's HTTP API. The server is
// the truth for which toxics exist; only frozen clients are remembered, so
// that links added later are frozen too. Methods are safe for concurrent
// use.
type remoteLinks struct {
	api        *toxiclient.Client
	prefix     string
	listenHost string
	clients    []string

	mu      sync.Mutex
	targets []string
	proxies map[Link]*toxiclient.Proxy
	frozen  map[string]bool
	closed  bool
}

// add creates one proxy per client to upstream, listening on a free port
// of listenHost; on error the proxies it created are deleted.
func (r *remoteLinks) add(target, upstream string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return ErrStopped
	}
	if slices.Contains(r.targets, target) {
		return fmt.Errorf("cluster: target %q already exists", target)
	}
	var made []Link
	for _, c := range r.clients {
		l := Link{Client: c, Target: target}
		name := r.prefix + c + "->" + target
		px, err := r.api.CreateProxy(name, net.JoinHostPort(r.listenHost, "0"), upstream)
		if err == nil && r.frozen[c] {
			err = freezeRemote(px)
		}
		if err != nil {
			if px != nil {
				_ = px.Delete()
			}
			for _, m := range made {
				_ = r.proxies[m].Delete()
				delete(r.proxies, m)
			}
			return fmt.Errorf("cluster: toxiproxy proxy %s: %w", name, err)
		}
		r.proxies[l] = px
		made = append(made, l)
	}
	r.targets = append(r.targets, target)
	return nil
}

// addr is the address the server's proxy for a link listens on.
func (r *remoteLinks) addr(l Link) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	px, err := r.find(l)
	if err != nil {
		return "", err
	}
	return px.Listen, nil
}

// find resolves a link, naming what is unknown. Called with mu held.
func (r *remoteLinks) find(l Link) (*toxiclient.Proxy, error) {
	if r.closed {
		return nil, ErrStopped
	}
	if px, ok := r.proxies[l]; ok {
		return px, nil
	}
	if !slices.Contains(r.clients, l.Client) {
		return nil, fmt.Errorf("%w %q", ErrUnknownClient, l.Client)
	}
	return nil, fmt.Errorf("%w %q", ErrUnknownTarget, l.Target)
}

// each resolves every link first (so a bad name changes nothing), then
// applies f to each proxy, stopping at the first error.
func (r *remoteLinks) each(links []Link, f func(*toxiclient.Proxy) error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	pxs := make([]*toxiclient.Proxy, 0, len(links))
	for _, l := range links {
		px, err := r.find(l)
		if err != nil {
			return err
		}
		pxs = append(pxs, px)
	}
	for _, px := range pxs {
		if err := f(px); err != nil {
			return fmt.Errorf("cluster: toxiproxy proxy %s: %w", px.Name, err)
		}
	}
	return nil
}

// ofClient applies f to every link of a client and records the client as
// frozen or not, for links added later.
func (r *remoteLinks) ofClient(client string, frozen bool, f func(*toxiclient.Proxy) error) error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrStopped
	}
	if !slices.Contains(r.clients, client) {
		r.mu.Unlock()
		return fmt.Errorf("%w %q", ErrUnknownClient, client)
	}
	r.frozen[client] = frozen
	var links []Link
	for l := range r.proxies {
		if l.Client == client {
			links = append(links, l)
		}
	}
	r.mu.Unlock()
	return r.each(links, f)
}

// ensureRemote adds the toxic pair (upstream name up, downstream name
// down) where missing, leaving present ones alone: repeating a cut or a
// freeze must not release or reset anything.
func ensureRemote(px *toxiclient.Proxy, typ, up, down string, attrs toxiclient.Attributes) error {
	ts, err := px.Toxics()
	if err != nil {
		return err
	}
	have := map[string]bool{}
	for _, t := range ts {
		have[t.Name] = true
	}
	for _, t := range [][2]string{{up, "upstream"}, {down, "downstream"}} {
		if !have[t[0]] {
			if _, err := px.AddToxic(t[0], typ, t[1], 1, attrs); err != nil {
				return err
			}
		}
	}
	return nil
}

// removeRemote removes toxics by name; absent ones are ignored.
func removeRemote(px *toxiclient.Proxy, names ...string) {
	for _, n := range names {
		_ = px.RemoveToxic(n)
	}
}

func cutRemote(px *toxiclient.Proxy) error {
	return ensureRemote(px, "timeout", toxCutUp, toxCutDown, toxiclient.Attributes{"timeout": 0})
}

func healRemote(px *toxiclient.Proxy) error { removeRemote(px, toxCutUp, toxCutDown); return nil }

func freezeRemote(px *toxiclient.Proxy) error {
	return ensureRemote(px, "latency", toxFreezeUp, toxFreezeDown, toxiclient.Attributes{"latency": freezeDelayMs})
}

func thawRemote(px *toxiclient.Proxy) error { removeRemote(px, toxFreezeUp, toxFreezeDown); return nil }

// latencyRemote returns the operation that replaces a proxy's latency by l.
func latencyRemote(l Latency) func(*toxiclient.Proxy) error {
	attrs := toxiclient.Attributes{"latency": l.Delay.Milliseconds(), "jitter": l.Jitter.Milliseconds()}
	return func(px *toxiclient.Proxy) error {
		removeRemote(px, toxLatUp, toxLatDown)
		if l.Stream != Downstream {
			if _, err := px.AddToxic(toxLatUp, "latency", "upstream", 1, attrs); err != nil {
				return err
			}
		}
		if l.Stream != Upstream {
			if _, err := px.AddToxic(toxLatDown, "latency", "downstream", 1, attrs); err != nil {
				removeRemote(px, toxLatUp)
				return err
			}
		}
		return nil
	}
}

func unlatencyRemote(px *toxiclient.Proxy) error { removeRemote(px, toxLatUp, toxLatDown); return nil }

// clearRemote removes every toxic on a proxy, whatever added it.
func clearRemote(px *toxiclient.Proxy) error {
	ts, err := px.Toxics()
	if err != nil {
		return err
	}
	for _, t := range ts {
		if err := px.RemoveToxic(t.Name); err != nil {
			return err
		}
	}
	return nil
}

// healAll removes every toxic from every link and forgets freezes.
func (r *remoteLinks) healAll() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrStopped
	}
	clear(r.frozen)
	links := make([]Link, 0, len(r.proxies))
	for l := range r.proxies {
		links = append(links, l)
	}
	r.mu.Unlock()
	return r.each(links, clearRemote)
}

// faulty lists the links whose proxies carry any toxic on the server.
func (r *remoteLinks) faulty() ([]Link, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Link
	for l, px := range r.proxies {
		ts, err := px.Toxics()
		if err != nil {
			return nil, err
		}
		if len(ts) > 0 {
			out = append(out, l)
		}
	}
	slices.SortFunc(out, func(a, b Link) int {
		return strings.Compare(a.Client+"\x00"+a.Target, b.Client+"\x00"+b.Target)
	})
	return out, nil
}

// close deletes every proxy lockstorm created on the server (their toxics
// go with them). Closing twice does nothing.
func (r *remoteLinks) close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	var errs []error
	for l, px := range r.proxies {
		if err := px.Delete(); err != nil {
			errs = append(errs, fmt.Errorf("cluster: delete toxiproxy proxy %s: %w", px.Name, err))
		}
		delete(r.proxies, l)
	}
	return errors.Join(errs...)
}
