package cluster

import (
	"errors"
	"fmt"
	"net"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
)

// NewRemoteProxies creates an empty link engine whose proxies live on the
// toxiproxy server behind api, driven through its HTTP API, each listening
// on a free port of listenHost and named <prefix><client>-><target>.
// Client names must be non-empty and distinct.
func NewRemoteProxies(api *toxiclient.Client, prefix, listenHost string, clients []string) (*Proxies, error) {
	return newProxies(remoteServer{api: api, prefix: prefix, listenHost: listenHost}, clients)
}

// remoteServer is a toxiproxy server reached over HTTP.
type remoteServer struct {
	api        *toxiclient.Client
	prefix     string
	listenHost string
}

// remoteProxy is one proxy on a remoteServer; errors name it.
type remoteProxy struct{ px *toxiclient.Proxy }

func (s remoteServer) create(name, upstream string) (toxicProxy, error) {
	name = s.prefix + name
	px, err := s.api.CreateProxy(name, net.JoinHostPort(s.listenHost, "0"), upstream)
	if err != nil {
		return nil, fmt.Errorf("cluster: toxiproxy proxy %s: %w", name, err)
	}
	return remoteProxy{px}, nil
}

func (remoteServer) remove(px toxicProxy) error { return px.(remoteProxy).px.Delete() }

// freeze is a day-long latency: the server has no hold toxic.
func (remoteServer) freeze() toxicSpec {
	return toxicSpec{typ: "latency", attrs: map[string]any{"latency": freezeDelay.Milliseconds()}}
}

// close deletes every proxy (their toxics go with them).
func (s remoteServer) close(pxs []toxicProxy) error {
	var errs []error
	for _, px := range pxs {
		if err := s.remove(px); err != nil {
			errs = append(errs, fmt.Errorf("cluster: delete toxiproxy proxy %s: %w", px.(remoteProxy).px.Name, err))
		}
	}
	return errors.Join(errs...)
}

// wrap names the proxy in an error.
func (p remoteProxy) wrap(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("cluster: toxiproxy proxy %s: %w", p.px.Name, err)
}

func (p remoteProxy) listen() string { return p.px.Listen }

func (p remoteProxy) names() ([]string, error) {
	ts, err := p.px.Toxics()
	if err != nil {
		return nil, p.wrap(err)
	}
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out, nil
}

func (p remoteProxy) has(name string) (bool, error) {
	ns, err := p.names()
	for _, n := range ns {
		if n == name {
			return true, nil
		}
	}
	return false, err
}

func (p remoteProxy) count() (int, error) {
	ns, err := p.names()
	return len(ns), err
}

func (p remoteProxy) add(name, stream string, t toxicSpec) error {
	_, err := p.px.AddToxic(name, t.typ, stream, 1, toxiclient.Attributes(t.attrs))
	return p.wrap(err)
}

func (p remoteProxy) remove(name string) { _ = p.px.RemoveToxic(name) }

// clear removes every toxic on the proxy, whatever added it.
func (p remoteProxy) clear() error {
	ns, err := p.names()
	if err != nil {
		return err
	}
	for _, n := range ns {
		if err := p.px.RemoveToxic(n); err != nil {
			return p.wrap(err)
		}
	}
	return nil
}
