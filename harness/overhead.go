package harness

import (
	"context"
	"slices"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockstorm/lockstorm/analysis"
	"github.com/lockstorm/lockstorm/lockimpl"
)

// proxyPings is how many PINGs each way measureProxy sends.
const proxyPings = 500

// measureProxy fills the proxy fields of o from PINGs to the first node,
// straight and through the first client's proxy (zero if either fails).
func (r *run) measureProxy(ctx context.Context, o *analysis.Overhead) {
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
	d, p, ok := pingBoth(ctx, direct, proxied)
	if !ok {
		return
	}
	o.DirectP50, o.ProxiedP50, o.ProxyAddedP50 = d.p50, p.p50, max(p.p50-d.p50, 0)
	o.DirectP99, o.ProxiedP99, o.ProxyAddedP99 = d.p99, p.p99, max(p.p99-d.p99, 0)
	r.logf("proxies add %.0f µs per command at p50, %.0f µs at p99 (PING through the proxy p50 %.0f µs, p99 %.0f µs; direct p50 %.0f µs, p99 %.0f µs)",
		o.ProxyAddedP50, o.ProxyAddedP99, p.p50, p.p99, d.p50, d.p99)
}

// pingLatency is the median and 99th percentile of PING round trips, in µs.
type pingLatency struct{ p50, p99 float64 }

// pingBoth measures proxyPings PING round trips to each address after a
// warm-up, alternating, so that the machine's load hits both alike.
func pingBoth(ctx context.Context, direct, proxied string) (d, p pingLatency, ok bool) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cd, cp := lockimpl.NewClient(direct), lockimpl.NewClient(proxied)
	defer cd.Close()
	defer cp.Close()
	ld, lp := make([]time.Duration, 0, proxyPings), make([]time.Duration, 0, proxyPings)
	for i := range proxyPings + 10 {
		td, err1 := pingOnce(ctx, cd)
		tp, err2 := pingOnce(ctx, cp)
		if err1 != nil || err2 != nil {
			return d, p, false
		}
		if i >= 10 {
			ld, lp = append(ld, td), append(lp, tp)
		}
	}
	return quantiles(ld), quantiles(lp), true
}

// pingOnce is the round trip of one PING on c.
func pingOnce(ctx context.Context, c *redis.Client) (time.Duration, error) {
	t := time.Now()
	err := c.Ping(ctx).Err()
	return time.Since(t), err
}

// quantiles is the p50 and p99 of lat (not empty) in µs; it sorts lat.
func quantiles(lat []time.Duration) pingLatency {
	slices.Sort(lat)
	us := func(q float64) float64 { return float64(lat[int(q*float64(len(lat)-1))].Nanoseconds()) / 1e3 }
	return pingLatency{p50: us(0.50), p99: us(0.99)}
}
