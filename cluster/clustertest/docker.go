package clustertest

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster/docker"
	"github.com/lockstorm/lockstorm/internal/lockstormbin"
)

// RedisImage is the local Redis image the tests use, built from this
// machine's redis-server by docker/build-redis-image.sh (no registry).
const RedisImage = "lockstorm/redis:7"

// RequireDockerEnv, when set to 1, turns "no Docker daemon" from a skip
// into a failure (for CI machines that must run the docker tests).
const RequireDockerEnv = "LOCKSTORM_REQUIRE_DOCKER"

// repoRoot is the repository root (lockstormbin.ModuleRoot); "." when
// none is found, so that the command run there fails saying what it missed.
func repoRoot() string {
	root, err := lockstormbin.ModuleRoot()
	if err != nil {
		return "."
	}
	return root
}

var image struct {
	once sync.Once
	err  error
	out  []byte
}

// NeedDocker skips the test, saying why, when no Docker daemon answers
// (fails it instead when LOCKSTORM_REQUIRE_DOCKER=1), then makes sure
// RedisImage exists, building it once per process if needed.
func NeedDocker(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := docker.Available(ctx); err != nil {
		if os.Getenv(RequireDockerEnv) == "1" {
			t.Fatalf("clustertest: %v (%s=1)", err, RequireDockerEnv)
		}
		t.Skipf("clustertest: skipping a docker provider test: %v", err)
	}
	image.once.Do(func() {
		cmd := exec.Command("sh", filepath.Join(repoRoot(), "docker", "build-redis-image.sh"), RedisImage)
		image.out, image.err = cmd.CombinedOutput()
	})
	if image.err != nil {
		t.Fatalf("clustertest: build %s: %v\n%s", RedisImage, image.err, image.out)
	}
}

// StartDocker starts a docker cluster of RedisImage containers (Nodes,
// Clients and Persistence from o; KeepDir keeps the containers) and stops
// it when the test ends.
func StartDocker(t testing.TB, o Options) *docker.Cluster {
	t.Helper()
	NeedDocker(t)
	if o.Nodes == 0 {
		o.Nodes = 1
	}
	return start(t, 60*time.Second, docker.ErrNoDaemon, func(ctx context.Context) (*docker.Cluster, error) {
		return docker.Start(ctx, docker.Config{Nodes: o.Nodes, Clients: o.Clients, Persistence: o.Persistence,
			Image: RedisImage, KeepContainers: o.KeepDir})
	})
}
