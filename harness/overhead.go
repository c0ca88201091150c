package harness

import (
	"context"
	"slices"
	"time"

	"github.com/lockstorm/lockstorm/lockimpl"
)

// Overhead is what the harness itself adds to the run it measures: the
// rate it recorded at and the latency the toxiproxy link between a client
// and a node adds to every command.
type Overhead struct {
	// Records is the number of history records; RecordsPerSec is that
	// over the run's time limit (or its length when cut short).
	Records       int     `json:"records"`
	RecordsPerSec float64 `json:"records_per_sec"`
	// DirectP50 and ProxiedP50 are the median round trips, in µs, of a
	// PING straight to the first node and through the first client's
	// proxy to it, measured before the clients start; ProxyAddedP50 is
	// their difference: the proxies' added latency per command.
	DirectP50     float64 `json:"direct_p50_us,omitempty"`
	ProxiedP50    float64 `json:"proxied_p50_us,omitempty"`
	ProxyAddedP50 float64 `json:"proxy_added_p50_us,omitempty"`
}

// proxyPings is how many PINGs each way measureProxy sends.
const proxyPings = 200

// measureProxy fills the proxy fields of o from PINGs to the first node,
// straight and through the first client's proxy. It leaves them zero when
// either address is unknown or a PING fails (an external cluster, say).
func (r *run) measureProxy(ctx context.Context, o *Overhead) {
	if r.cluster == nil || len(r.clients) == 0 {
		return
	}
	nodes := r.cluster.Nodes()
	if len(nodes) == 0 {
		return
	}
	direct, err1 := r.cluster.AdminAddr(nodes[0])
	proxied, err2 := r.cluster.Addr(r.clients[0], nodes[0])
	if err1 != nil || err2 != nil || direct == proxied {
		return
	}
	d, okd := pingP50(ctx, direct)
	p, okp := pingP50(ctx, proxied)
	if !okd || !okp {
		return
	}
	o.DirectP50, o.ProxiedP50 = d, p
	o.ProxyAddedP50 = max(p-d, 0)
	r.logf("proxies add %.0f µs per command (p50 PING %.0f µs through the proxy, %.0f µs direct)", o.ProxyAddedP50, p, d)
}

// pingP50 is the median PING round trip to addr in µs, after a warm-up.
func pingP50(ctx context.Context, addr string) (float64, bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	c := lockimpl.NewClient(addr)
	defer c.Close()
	lat := make([]time.Duration, 0, proxyPings)
	for i := range proxyPings + 10 {
		t := time.Now()
		if err := c.Ping(ctx).Err(); err != nil {
			return 0, false
		}
		if i >= 10 {
			lat = append(lat, time.Since(t))
		}
	}
	slices.Sort(lat)
	return float64(lat[len(lat)/2].Nanoseconds()) / 1e3, true
}
