package cluster_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/external"
)

// externalConfig runs local redis-servers and a toxiproxy server process and
// returns the external provider's config for them.
func externalConfig(t *testing.T, nodes int, clients ...string) external.Config {
	t.Helper()
	local := clustertest.Start(t, nodes)
	cfg := external.Config{ToxiproxyAPI: clustertest.StartToxiproxyServer(t), Clients: clients}
	for _, n := range local.Nodes() {
		cfg.Addrs = append(cfg.Addrs, adminAddr(t, local, n))
	}
	return cfg
}

// serverProxies lists the names of the proxies on the toxiproxy server.
func serverProxies(t *testing.T, api string) []string {
	t.Helper()
	ps, err := toxiclient.NewClient(api).Proxies()
	clustertest.Must(t, err)
	var out []string
	for name := range ps {
		out = append(out, name)
	}
	return out
}

// The provider creates one proxy per (client, node) on the server and
// Stop deletes them all; process faults are refused as unsupported.
func TestExternalLifecycle(t *testing.T) {
	cfg := externalConfig(t, 2, "c1", "c2")
	ctx := clustertest.Context(t, 20*time.Second)
	c, err := external.Start(ctx, cfg)
	clustertest.Must(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	if got := serverProxies(t, cfg.ToxiproxyAPI); len(got) != 4 {
		t.Fatalf("server has proxies %v, want 4", got)
	}
	for _, err := range []error{c.Pause(ctx, "n1"), c.Resume(ctx, "n1"), c.Kill(ctx, "n1"), c.Restart(ctx, "n2")} {
		if !errors.Is(err, cluster.ErrUnsupported) {
			t.Errorf("process fault = %v, want ErrUnsupported", err)
		}
	}
	addr, err := c.Addr("c1", "n1")
	clustertest.Must(t, err)
	clustertest.Must(t, clustertest.Client(t, addr, time.Second).Ping(ctx).Err())
	clustertest.Must(t, c.Cut(ctx, cluster.Links("c1", "n1")))
	clustertest.Must(t, c.Stop())
	clustertest.Must(t, c.Stop())
	if got := serverProxies(t, cfg.ToxiproxyAPI); len(got) != 0 {
		t.Fatalf("proxies left on the server after Stop: %v", got)
	}
	if err := clustertest.Client(t, addr, 200*time.Millisecond).Ping(ctx).Err(); err == nil {
		t.Fatal("a proxy still answers after Stop")
	}
	if err := c.HealAll(ctx); !errors.Is(err, cluster.ErrStopped) {
		t.Fatalf("HealAll after Stop = %v, want ErrStopped", err)
	}
}

// Non-loopback targets are refused, saying why, before anything is
// contacted; a missing password variable and a silent server are errors.
func TestExternalRefuses(t *testing.T) {
	cfg := externalConfig(t, 1)
	ctx := clustertest.Context(t, 20*time.Second)
	t.Setenv("LOCKSTORM_TEST_EMPTY", "")
	for _, tc := range []struct {
		name string
		edit func(*external.Config)
		want string
	}{
		{"remote redis", func(c *external.Config) { c.Addrs = append(c.Addrs, "10.1.2.3:6379") }, "loopback"},
		{"remote toxiproxy", func(c *external.Config) { c.ToxiproxyAPI = "http://192.0.2.1:8474" }, "loopback"},
		{"remote listen", func(c *external.Config) { c.ListenHost = "192.0.2.1" }, "loopback"},
		{"named host", func(c *external.Config) { c.Addrs = []string{"redis.example:6379"} }, "AllowNonLoopback"},
		{"no addrs", func(c *external.Config) { c.Addrs = nil }, "at least one"},
		{"no api", func(c *external.Config) { c.ToxiproxyAPI = "" }, "API address"},
		{"password unset", func(c *external.Config) { c.PasswordEnv = "LOCKSTORM_TEST_EMPTY" }, "LOCKSTORM_TEST_EMPTY"},
		{"silent server", func(c *external.Config) { c.ToxiproxyAPI, c.Wait = "127.0.0.1:1", 300*time.Millisecond }, "does not answer"},
		{"bad client", func(c *external.Config) { c.Clients = []string{"a", "a"} }, "duplicate client"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := cfg
			bad.Addrs = append([]string(nil), cfg.Addrs...)
			tc.edit(&bad)
			c, err := external.Start(ctx, bad)
			if err == nil {
				_ = c.Stop()
				t.Fatal("StartExternal succeeded")
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q, want it to mention %q", err, tc.want)
			}
		})
	}
	if got := serverProxies(t, cfg.ToxiproxyAPI); len(got) != 0 {
		t.Fatalf("failed starts left proxies: %v", got)
	}
	t.Setenv("LOCKSTORM_TEST_PASSWORD", "s3cret")
	cfg.PasswordEnv, cfg.TLS = "LOCKSTORM_TEST_PASSWORD", true
	c, err := external.Start(ctx, cfg)
	clustertest.Must(t, err)
	defer c.Stop()
	if host, _ := c.ServerName("n1"); c.Password() != "s3cret" || !c.TLS() || host != "127.0.0.1" {
		t.Fatalf("password %q, TLS %v, server name %q", c.Password(), c.TLS(), host)
	}
}
