package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/rs/zerolog"
)

// NewProxies creates an empty link engine whose proxies run in this
// process, in an embedded toxiproxy server, each listening on 127.0.0.1
// on a free port, for the given clients, whose names must be non-empty and
// distinct. No HTTP API is started; its log output is discarded. It is
// shared by every provider whose proxies run in the harness process
// (local, docker).
func NewProxies(clients []string) (*Proxies, error) {
	srv := embeddedServer{toxiproxy.NewServer(toxiproxy.NewMetricsContainer(nil), zerolog.Nop())}
	return newProxies(srv, clients)
}

// embeddedServer is an in-process toxiproxy server.
type embeddedServer struct{ srv *toxiproxy.ApiServer }

// embeddedProxy is one proxy of an embeddedServer.
type embeddedProxy struct {
	px   *toxiproxy.Proxy
	addr string
}

func (s embeddedServer) create(name, upstream string) (toxicProxy, error) {
	px := toxiproxy.NewProxy(s.srv, name, "127.0.0.1:0", upstream)
	if err := s.srv.Collection.Add(px, true); err != nil {
		return nil, fmt.Errorf("cluster: proxy %s: %w", name, err)
	}
	// Start has set Listen to the bound address.
	px.Lock()
	addr := px.Listen
	px.Unlock()
	return &embeddedProxy{px: px, addr: addr}, nil
}

func (s embeddedServer) remove(px toxicProxy) error {
	return s.srv.Collection.Remove(px.(*embeddedProxy).px.Name)
}

// freeze is lockstorm's hold toxic: it holds data without losing any,
// whatever other fault is added or removed meanwhile.
func (embeddedServer) freeze() toxicSpec {
	return toxicSpec{typ: holdToxicType, attrs: map[string]any{}}
}

func (s embeddedServer) close([]toxicProxy) error { return s.srv.Collection.Clear() }

func (p *embeddedProxy) listen() string { return p.addr }

func (p *embeddedProxy) has(name string) (bool, error) { return p.px.Toxics.GetToxic(name) != nil, nil }

func (p *embeddedProxy) count() (int, error) { return len(p.px.Toxics.GetToxicArray()), nil }

func (p *embeddedProxy) add(name, stream string, t toxicSpec) error {
	attrs, err := json.Marshal(t.attrs)
	if err != nil {
		return err
	}
	js := fmt.Sprintf(`{"name":%q,"type":%q,"stream":%q,"toxicity":1,"attributes":%s}`, name, t.typ, stream, attrs)
	if _, err := p.px.Toxics.AddToxicJson(strings.NewReader(js)); err != nil {
		return fmt.Errorf("cluster: add toxic %s to %s: %w", name, p.px.Name, err)
	}
	return nil
}

func (p *embeddedProxy) remove(name string) {
	if p.px.Toxics.GetToxic(name) != nil {
		_ = p.px.Toxics.RemoveToxic(context.Background(), name)
	}
}

// clear has nothing to do: only the link engine adds toxics here, and
// healProxy has removed them.
func (p *embeddedProxy) clear() error { return nil }
