package cluster_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	toxiclient "github.com/Shopify/toxiproxy/v2/client"
	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/external"
)

// externalHelperEnv, when set to "<toxiproxy API> <redis addr>", makes the
// test binary act as a lockstorm run on the external provider: create its
// proxies, cut c1's link, print "READY", and wait to be killed.
const externalHelperEnv = "LOCKSTORM_EXTERNAL_HELPER"

func externalHelper() {
	api, addr, _ := strings.Cut(os.Getenv(externalHelperEnv), " ")
	ctx := context.Background()
	e, err := external.Start(ctx, external.Config{ToxiproxyAPI: api, Addrs: []string{addr}, Clients: []string{"c1", "c2"}})
	if err == nil {
		err = e.Cut(ctx, cluster.Links("c1", "n1"))
	}
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	fmt.Println("READY")
	time.Sleep(time.Minute)
	os.Exit(4) // not killed in time
}

// A run killed with SIGKILL leaves its proxies and toxics on the toxiproxy
// server; the next start on this host removes them, and keeps proxies of
// another host, of a live process, and proxies lockstorm did not make.
func TestExternalRemovesStaleProxies(t *testing.T) {
	cfg := externalConfig(t, 1, "c1")
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), externalHelperEnv+"="+cfg.ToxiproxyAPI+" "+cfg.Addrs[0])
	out, err := cmd.StdoutPipe()
	clustertest.Must(t, err)
	clustertest.Must(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "READY\n" {
		t.Fatalf("helper said %q (%v)", line, err)
	}
	clustertest.Must(t, cmd.Process.Kill()) // SIGKILL: no cleanup
	_ = cmd.Wait()
	left := serverProxies(t, cfg.ToxiproxyAPI)
	if len(left) != 2 {
		t.Fatalf("the killed run left proxies %v, want its 2", left)
	}

	api := toxiclient.NewClient(cfg.ToxiproxyAPI)
	host, _ := os.Hostname()
	keep := []string{
		"lockstorm_some-other-host_99999997_0123abcd_c1->n1", // another host: its pid means nothing here
		"lockstorm_" + host + "_1_0123abcd_c1->n1",           // pid 1 is alive
		"users-own-proxy",
	}
	for _, name := range keep {
		_, err := api.CreateProxy(name, "127.0.0.1:0", cfg.Addrs[0])
		clustertest.Must(t, err)
	}

	c, err := external.Start(clustertest.Context(t, 20*time.Second), cfg)
	clustertest.Must(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	now := serverProxies(t, cfg.ToxiproxyAPI)
	for _, name := range left {
		if slices.Contains(now, name) {
			t.Errorf("stale proxy %s of the killed run is still on the server", name)
		}
	}
	for _, name := range keep {
		if !slices.Contains(now, name) {
			t.Errorf("proxy %s that is not a stale one of this host was removed", name)
		}
	}
	if len(now) != len(keep)+1 {
		t.Errorf("server has proxies %v, want %v and this run's one", now, keep)
	}
}
