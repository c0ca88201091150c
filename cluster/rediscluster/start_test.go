package rediscluster_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/rediscluster"
)

// The provider is a cluster.Cluster.
var _ cluster.Cluster = (*rediscluster.Cluster)(nil)

func TestStartFormsAHealthyCluster(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{})
	// Its CutReplication and Failover are a Redis Cluster's, not those of
	// the local provider's master-replica pair.
	if _, err := cluster.ReplicationOf(c); !errors.Is(err, cluster.ErrUnsupported) {
		t.Errorf("ReplicationOf: %v, want ErrUnsupported", err)
	}
	want := []string{"n1", "n2", "n3", "n1r", "n2r", "n3r"}
	if got := c.Nodes(); !equal(got, want) {
		t.Fatalf("Nodes() = %v, want %v", got, want)
	}
	s, err := c.State(clustertest.Context(t, 5*time.Second))
	clustertest.Must(t, err)
	if s.Covered != rediscluster.Slots {
		t.Errorf("%d slots covered, want %d", s.Covered, rediscluster.Slots)
	}
	if !equal(s.Masters, want[:3]) {
		t.Errorf("masters %v, want %v", s.Masters, want[:3])
	}
	for i, m := range want[:3] {
		st, _ := s.Node(m)
		if st.ClusterState != "ok" || st.Role != rediscluster.RoleMaster || st.Slots < rediscluster.Slots/3 {
			t.Errorf("%s: %+v, want an ok master of a third of the slots", m, st)
		}
		r, _ := s.Node(want[3+i])
		if r.ClusterState != "ok" || r.Role != rediscluster.RoleReplica || r.Following != m || !r.LinkUp {
			t.Errorf("%s: %+v, want an ok replica of %s with its link up", r.Name, r, m)
		}
	}
}

func TestStartRefusesFewerThanThreeMasters(t *testing.T) {
	_, err := rediscluster.Start(context.Background(), rediscluster.Config{Masters: 2})
	if !errors.Is(err, rediscluster.ErrTooFewMasters) {
		t.Fatalf("Start with 2 masters: %v, want ErrTooFewMasters", err)
	}
}

func TestStopLeavesNothing(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{Clients: []string{"c1"}})
	dir := c.Dir()
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("run directory: %v", err)
	}
	clustertest.Must(t, c.Stop())
	if left := clustertest.ChildRedis(os.Getpid()); len(left) > 0 {
		t.Errorf("redis-servers left after Stop: %v", left)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("run directory %s after Stop: %v, want it removed", dir, err)
	}
	if err := c.IsolateBus(context.Background(), "n1"); !errors.Is(err, cluster.ErrStopped) {
		t.Errorf("IsolateBus after Stop: %v, want ErrStopped", err)
	}
}

// equal reports whether two lists are the same.
func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStopKeepsTheDirectoryWhenAsked(t *testing.T) {
	c := clustertest.StartRedisCluster(t, rediscluster.Config{Clients: []string{"c1"}, Keep: true, Dir: t.TempDir()})
	clustertest.Must(t, c.Stop())
	if left := clustertest.ChildRedis(os.Getpid()); len(left) > 0 {
		t.Errorf("redis-servers left after Stop: %v", left)
	}
	for _, f := range []string{"n1/nodes.conf", "n1r/redis.log", ".lockstorm-kept"} {
		if _, err := os.Stat(filepath.Join(c.Dir(), f)); err != nil {
			t.Errorf("kept %s: %v", f, err)
		}
	}
}
