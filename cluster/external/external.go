// Package external is the external provider: Redis endpoints lockstorm
// does not run, behind proxies it creates on a toxiproxy server.
package external

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/internal/host"
)

// Config describes Redis endpoints lockstorm does not run, and the
// toxiproxy server through which clients reach them.
type Config struct {
	// Addrs are the Redis endpoints ("host:port"), named n1..nN in order.
	Addrs []string
	// PasswordEnv names the environment variable that holds the Redis
	// password (never the password itself, so that it stays out of
	// command lines and stored configs); empty means no password.
	PasswordEnv string
	// TLS says the endpoints speak TLS. toxiproxy forwards bytes, so TLS
	// runs end to end through the proxies; clients must verify the
	// certificate against ServerName, not the proxy address.
	TLS bool
	// ToxiproxyAPI is the toxiproxy server's HTTP API ("host:port" or an
	// http:// URL), e.g. 127.0.0.1:8474.
	ToxiproxyAPI string
	// ListenHost is the host on which the server's proxies listen; empty
	// means the API's host (127.0.0.1 for localhost).
	ListenHost string
	// Clients names the clients; each gets its own proxy to every node.
	// Empty means one client, "c1".
	Clients []string
	// AllowNonLoopback allows Redis endpoints, upstreams and a toxiproxy
	// server off this host's loopback interface. Without it they are
	// refused, because lockstorm's faults disrupt whatever they touch.
	AllowNonLoopback bool
	// Wait is how long Start retries an endpoint or the toxiproxy
	// API that does not answer yet (containers started together come up in
	// any order); zero means 5s.
	Wait time.Duration
}

// Cluster is the external provider's cluster: existing Redis endpoints behind
// proxies that lockstorm creates on a toxiproxy server through its HTTP API
// and deletes at Stop. Only link faults apply: Cut, Heal, AddLatency,
// RemoveLatency, Freeze and Thaw. Freeze is emulated with a day-long
// latency toxic, since the server has no hold toxic: it holds data
// without losing it, but adding or removing another fault on a frozen
// link releases the chunk each frozen stream was delaying. Pause, Resume,
// Kill and Restart return cluster.ErrUnsupported. It implements
// cluster.Cluster.
type Cluster struct {
	cluster.LinkFaults // clients, proxy addresses and link faults
	cfg                Config
	password           string
	proxies            *cluster.Proxies
}

var _ cluster.Cluster = (*Cluster)(nil)

// defaultWait is Config.Wait's default.
const defaultWait = 5 * time.Second

// retryFor calls f every 200ms until it succeeds, wait passes or ctx
// ends, and returns its last error.
func retryFor(ctx context.Context, wait time.Duration, f func() error) error {
	deadline := time.Now().Add(wait)
	for {
		err := f()
		if err == nil || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// Start checks the configuration (refusing non-loopback addresses
// unless allowed), that every endpoint accepts TCP connections and that
// the toxiproxy server answers, removes the proxies a killed lockstorm run
// of this host left there (see removeStaleProxies), then creates one proxy
// per (client, node) on the server, named by newProxyRunPrefix. On error no
// proxy is left behind.
func Start(ctx context.Context, cfg Config) (*Cluster, error) {
	if err := check(&cfg); err != nil {
		return nil, err
	}
	api := toxiclient.NewClient(cfg.ToxiproxyAPI)
	proxies, err := cluster.NewRemoteProxies(api, newProxyRunPrefix(), cfg.ListenHost, cfg.Clients)
	if err != nil {
		return nil, err
	}
	e := &Cluster{LinkFaults: cluster.NewLinkFaults(proxies), cfg: cfg, proxies: proxies}
	if cfg.PasswordEnv != "" {
		if e.password = os.Getenv(cfg.PasswordEnv); e.password == "" {
			return nil, fmt.Errorf("cluster: external: environment variable %s (the Redis password) is empty or unset", cfg.PasswordEnv)
		}
	}
	if err := reachable(ctx, cfg, api); err != nil {
		return nil, err
	}
	if _, err := removeStaleProxies(api); err != nil {
		return nil, err
	}
	cluster.Track(e)
	for i, a := range cfg.Addrs {
		if err := e.proxies.AddTarget(ctx, "n"+strconv.Itoa(i+1), a); err != nil {
			_ = e.Stop()
			return nil, err
		}
	}
	return e, nil
}

// check fills in cfg's defaults and refuses a configuration without
// endpoints or API, and non-loopback addresses unless allowed.
func check(cfg *Config) error {
	if len(cfg.Addrs) == 0 {
		return errors.New("cluster: external: at least one Redis address is required")
	}
	if cfg.ToxiproxyAPI == "" {
		return errors.New("cluster: external: the toxiproxy server's API address is required")
	}
	if len(cfg.Clients) == 0 {
		cfg.Clients = []string{"c1"}
	}
	if cfg.Wait <= 0 {
		cfg.Wait = defaultWait
	}
	cfg.Clients, cfg.Addrs = slices.Clone(cfg.Clients), slices.Clone(cfg.Addrs)
	apiHost, err := toxiproxyHost(cfg.ToxiproxyAPI)
	if err != nil {
		return err
	}
	if cfg.ListenHost == "" {
		cfg.ListenHost = apiHost
	}
	checks := []string{"toxiproxy API=" + net.JoinHostPort(apiHost, "0"), "listen host=" + net.JoinHostPort(cfg.ListenHost, "0")}
	for i, a := range cfg.Addrs {
		checks = append(checks, "n"+strconv.Itoa(i+1)+"="+a)
	}
	for _, c := range checks {
		what, addr, _ := strings.Cut(c, "=")
		if err := externalAddrAllowed(what, addr, cfg.AllowNonLoopback); err != nil {
			return err
		}
	}
	return nil
}

// reachable waits (cfg.Wait at most) until every endpoint accepts TCP
// connections and the toxiproxy API answers.
func reachable(ctx context.Context, cfg Config, api *toxiclient.Client) error {
	for i, a := range cfg.Addrs {
		err := retryFor(ctx, cfg.Wait, func() error {
			d := net.Dialer{Timeout: time.Second}
			conn, err := d.DialContext(ctx, "tcp", a)
			if err == nil {
				_ = conn.Close()
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("cluster: external: node n%d at %s does not accept connections: %w", i+1, a, err)
		}
	}
	if err := retryFor(ctx, cfg.Wait, func() error { _, err := api.Version(); return err }); err != nil {
		return fmt.Errorf("cluster: external: toxiproxy server at %s does not answer: %w", cfg.ToxiproxyAPI, err)
	}
	return nil
}

// toxiproxyHost extracts the host of the API address.
func toxiproxyHost(api string) (string, error) {
	hostport := api
	if strings.Contains(api, "://") {
		u, err := url.Parse(api)
		if err != nil {
			return "", fmt.Errorf("cluster: external: toxiproxy API %q: %w", api, err)
		}
		hostport = u.Host
	}
	host, _, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", fmt.Errorf("cluster: external: toxiproxy API %q must be host:port: %w", api, err)
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	return host, nil
}

// externalAddrAllowed refuses a non-loopback address unless allowed, and
// says why.
func externalAddrAllowed(what, addr string, allow bool) error {
	ok, err := host.IsLoopbackAddr(addr)
	if err != nil {
		return fmt.Errorf("cluster: external: %s %q: %w", what, addr, err)
	}
	if !ok && !allow {
		return fmt.Errorf("cluster: external: %s %q is not on this host's loopback interface; "+
			"lockstorm cuts, delays and floods what it targets, so it refuses other hosts unless "+
			"explicitly allowed (AllowNonLoopback, --allow-non-loopback)", what, addr)
	}
	return nil
}

// Nodes lists the node names n1..nN.
func (e *Cluster) Nodes() []string {
	out := make([]string, len(e.cfg.Addrs))
	for i := range out {
		out[i] = "n" + strconv.Itoa(i+1)
	}
	return out
}

// AdminAddr is the node's endpoint as configured, bypassing the proxies.
func (e *Cluster) AdminAddr(node string) (string, error) {
	i, err := strconv.Atoi(strings.TrimPrefix(node, "n"))
	if !strings.HasPrefix(node, "n") || err != nil || i < 1 || i > len(e.cfg.Addrs) {
		return "", fmt.Errorf("%w %q", cluster.ErrUnknownNode, node)
	}
	return e.cfg.Addrs[i-1], nil
}

// Password is the Redis password read from PasswordEnv ("" for none).
func (e *Cluster) Password() string { return e.password }

// TLS says whether the endpoints speak TLS.
func (e *Cluster) TLS() bool { return e.cfg.TLS }

// ServerName is the host name a TLS client verifies for a node: the
// endpoint's host, since clients dial the proxy's address.
func (e *Cluster) ServerName(node string) (string, error) {
	a, err := e.AdminAddr(node)
	if err != nil {
		return "", err
	}
	host, _, err := net.SplitHostPort(a)
	return host, err
}

// AddUpstream registers an extra target and creates its proxies on the
// server. Like the nodes, it must be on loopback unless AllowNonLoopback.
func (e *Cluster) AddUpstream(ctx context.Context, name, addr string) error {
	if err := externalAddrAllowed("upstream "+name, addr, e.cfg.AllowNonLoopback); err != nil {
		return err
	}
	if _, err := e.AdminAddr(name); err == nil {
		return fmt.Errorf("cluster: upstream %q: name is a node", name)
	}
	return e.proxies.AddTarget(ctx, name, addr)
}

// unsupported is the error of a process fault on external nodes.
func (e *Cluster) unsupported(op, node string) error {
	if _, err := e.AdminAddr(node); err != nil {
		return err
	}
	return fmt.Errorf("%w: %s %s: the external provider does not control the Redis processes", cluster.ErrUnsupported, op, node)
}

// Pause is not supported: lockstorm does not run the external processes.
func (e *Cluster) Pause(ctx context.Context, node string) error { return e.unsupported("pause", node) }

// Resume is not supported.
func (e *Cluster) Resume(ctx context.Context, node string) error {
	return e.unsupported("resume", node)
}

// Kill is not supported.
func (e *Cluster) Kill(ctx context.Context, nodes ...string) error {
	return e.unsupported("kill", strings.Join(nodes, ","))
}

// Restart is not supported.
func (e *Cluster) Restart(ctx context.Context, nodes ...string) error {
	return e.unsupported("restart", strings.Join(nodes, ","))
}

// HealAll removes every toxic from every proxy lockstorm created.
func (e *Cluster) HealAll(ctx context.Context) error { return e.proxies.HealAll(ctx) }

// Faulty lists the links that carry any toxic on the server.
func (e *Cluster) Faulty() ([]cluster.Link, error) { return e.proxies.ListFaulty() }

// Stop deletes every proxy lockstorm created on the server. Calling it
// again does nothing.
func (e *Cluster) Stop() error {
	err := e.proxies.Close()
	cluster.Untrack(e)
	return err
}
