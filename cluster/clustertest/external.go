package clustertest

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/external"
	"github.com/lockstorm/lockstorm/cluster/local"
)

// toxiproxyModule is the module whose server StartToxiproxyServer runs.
const toxiproxyModule = "github.com/Shopify/toxiproxy/v2"

var server struct {
	once sync.Once
	bin  string
	err  error
}

// toxiproxyServer builds toxiproxy's own server command once and caches
// the binary under the user cache directory, keyed by the module version.
func toxiproxyServer() (string, error) {
	server.once.Do(func() {
		version := "devel"
		if bi, ok := debug.ReadBuildInfo(); ok {
			for _, m := range bi.Deps {
				if m.Path == toxiproxyModule {
					version = m.Version
				}
			}
		}
		dir, err := os.UserCacheDir()
		if err != nil {
			dir = os.TempDir()
		}
		dir = filepath.Join(dir, "lockstorm")
		server.bin = filepath.Join(dir, "toxiproxy-server-"+version)
		if _, err := os.Stat(server.bin); err == nil {
			return
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			server.err = err
			return
		}
		tmp := fmt.Sprintf("%s.%d", server.bin, os.Getpid())
		cmd := exec.Command("go", "build", "-o", tmp, toxiproxyModule+"/cmd/server")
		cmd.Dir = repoRoot()
		if out, err := cmd.CombinedOutput(); err != nil {
			server.err = fmt.Errorf("go build %s/cmd/server: %v\n%s", toxiproxyModule, err, out)
			return
		}
		server.err = os.Rename(tmp, server.bin)
	})
	return server.bin, server.err
}

// StartToxiproxyServer runs toxiproxy's server as a separate process with
// its API on a free 127.0.0.1 port, kills it when the test ends, and
// returns the API address.
func StartToxiproxyServer(t testing.TB) string {
	t.Helper()
	bin, err := toxiproxyServer()
	if err != nil {
		t.Fatalf("clustertest: %v", err)
	}
	for try := 0; try < 5; try++ {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
		_ = ln.Close()
		cmd := exec.Command(bin, "-host", "127.0.0.1", "-port", port)
		if err := cmd.Start(); err != nil {
			t.Fatalf("clustertest: start toxiproxy server: %v", err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		stop := func() { _ = cmd.Process.Kill(); <-exited }
		api := net.JoinHostPort("127.0.0.1", port)
		if apiAnswers(api, exited) {
			t.Cleanup(stop)
			return api
		}
		stop() // the port was taken, or the server failed: try again
	}
	t.Fatal("clustertest: the toxiproxy server did not start")
	return ""
}

// apiAnswers polls GET /version until it answers, the process exits, or
// 10 s pass.
func apiAnswers(api string, exited <-chan struct{}) bool {
	hc := http.Client{Timeout: time.Second}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if resp, err := hc.Get("http://" + api + "/version"); err == nil {
			resp.Body.Close()
			return resp.StatusCode == http.StatusOK
		}
		select {
		case <-exited:
			return false
		case <-time.After(50 * time.Millisecond):
		}
	}
	return false
}

// StartExternal plays an external deployment on this machine: o.Nodes
// local redis-servers (persistence from o) as the endpoints and a
// separately started toxiproxy server, driven by the external provider.
// Both are stopped when the test ends. The local cluster is returned too,
// for the endpoints' own control.
func StartExternal(t testing.TB, o Options) (*external.Cluster, *local.Cluster) {
	t.Helper()
	if o.Nodes == 0 {
		o.Nodes = 1
	}
	nodes := StartWith(t, Options{Nodes: o.Nodes, Persistence: o.Persistence, SkipIfMissing: o.SkipIfMissing})
	var addrs []string
	for _, n := range nodes.Nodes() {
		a, err := nodes.AdminAddr(n)
		if err != nil {
			t.Fatal(err)
		}
		addrs = append(addrs, a)
	}
	api := StartToxiproxyServer(t)
	c := start(t, 30*time.Second, nil, func(ctx context.Context) (*external.Cluster, error) {
		return external.Start(ctx, external.Config{Addrs: addrs, ToxiproxyAPI: api, Clients: o.Clients})
	})
	return c, nodes
}
