package cluster_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/clustertest"
	"github.com/lockstorm/lockstorm/cluster/docker"
	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/client"
	"github.com/redis/go-redis/v9"
	"github.com/testcontainers/testcontainers-go"
)

// dockerAPI is a Docker client for checks the provider does not expose,
// closed when the test ends.
func dockerAPI(t *testing.T) *testcontainers.DockerClient {
	t.Helper()
	clustertest.NeedDocker(t)
	cli, err := testcontainers.NewDockerClientWithOpts(clustertest.Context(t, 20*time.Second))
	clustertest.Must(t, err)
	t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// labelled lists the names of the containers and networks carrying a label
// (key or key=value).
func labelled(t *testing.T, cli *testcontainers.DockerClient, label string) []string {
	t.Helper()
	ctx := clustertest.Context(t, 20*time.Second)
	f := client.Filters{}.Add("label", label)
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	clustertest.Must(t, err)
	ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	clustertest.Must(t, err)
	var out []string
	for _, c := range cs.Items {
		out = append(out, "container "+strings.Join(c.Names, ","))
	}
	for _, n := range ns.Items {
		out = append(out, "network "+n.Name)
	}
	return out
}

// waitFor polls cond every 100ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return true
		}
	}
	return cond()
}

// Taking the master off the run's private network breaks a replication
// link that runs over it (by node name), while clients still reach the
// master; the publishing network carries no traffic between containers;
// reconnecting (here by HealAll) lets replication catch up.
func TestDockerDisconnectNode(t *testing.T) {
	c := clustertest.StartDocker(t, clustertest.Options{Nodes: 2})
	ctx := clustertest.Context(t, 20*time.Second)
	master, replica := clustertest.Admin(t, c, "n1", 2*time.Second), clustertest.Admin(t, c, "n2", 2*time.Second)
	for _, rc := range []*redis.Client{master, replica} {
		clustertest.Must(t, rc.ConfigSet(ctx, "repl-timeout", "2").Err())
	}
	linkUp := func() bool {
		s, err := replica.Info(ctx, "replication").Result()
		return err == nil && strings.Contains(s, "master_link_status:up")
	}
	has := func(key, want string) func() bool {
		return func() bool { got, _ := replica.Get(ctx, key).Result(); return got == want }
	}

	// The publishing network forbids container-to-container traffic: the
	// replica cannot reach the master's address there.
	pubIP := containerIP(t, c, "n1", c.Network()+"-pub")
	clustertest.Must(t, replica.Do(ctx, "REPLICAOF", pubIP, "6379").Err())
	if waitFor(1500*time.Millisecond, linkUp) {
		t.Fatalf("the replica reached the master over the publishing network (%s)", pubIP)
	}
	clustertest.Must(t, replica.Do(ctx, "REPLICAOF", "n1", "6379").Err())
	if !waitFor(10*time.Second, linkUp) {
		t.Fatal("replication over the private network did not come up")
	}
	clustertest.Must(t, master.Set(ctx, "a", "1", 0).Err())
	if !waitFor(5*time.Second, has("a", "1")) {
		t.Fatal("a write on the master did not replicate")
	}

	clustertest.Must(t, c.DisconnectNode(ctx, "n1"))
	clustertest.Must(t, c.DisconnectNode(ctx, "n1")) // idempotent
	clustertest.Must(t, clustertest.Dial(t, c, "c1", "n1", time.Second).Set(ctx, "b", "2", 0).Err())
	if waitFor(time.Second, has("b", "2")) {
		t.Fatal("a write reached the replica while the master was disconnected")
	}

	clustertest.Must(t, c.HealAll(ctx)) // reconnects
	if !waitFor(15*time.Second, has("b", "2")) {
		t.Fatal("replication did not catch up after the master was reconnected")
	}
	clustertest.Must(t, c.ReconnectNode(ctx, "n1")) // idempotent
}

// containerIP is a node's address on a network, from docker inspect.
func containerIP(t *testing.T, c *docker.Cluster, node, network string) string {
	t.Helper()
	res, err := dockerAPI(t).ContainerInspect(clustertest.Context(t, 20*time.Second), c.ContainerID(node), client.ContainerInspectOptions{})
	clustertest.Must(t, err)
	ep, ok := res.Container.NetworkSettings.Networks[network]
	if !ok || !ep.IPAddress.IsValid() {
		t.Fatalf("node %s has no address on %s", node, network)
	}
	return ep.IPAddress.String()
}

// Stop removes every container and network of the run even with a node
// paused and a client frozen, is idempotent, and later operations fail
// with ErrStopped.
func TestDockerStopCleansUp(t *testing.T) {
	cli := dockerAPI(t)
	ctx := clustertest.Context(t, 20*time.Second)
	c, err := docker.Start(ctx, docker.Config{Nodes: 2, Image: clustertest.RedisImage})
	clustertest.Must(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	label := "lockstorm.run=" + c.Run()
	if got := labelled(t, cli, label); len(got) != 4 {
		t.Fatalf("run resources %v, want 2 containers and 2 networks", got)
	}
	addr, _ := c.Addr("c1", "n1")
	clustertest.Must(t, c.Pause(ctx, "n2"))
	clustertest.Must(t, c.Freeze(ctx, "c1"))
	clustertest.Must(t, c.Stop())
	clustertest.Must(t, c.Stop())
	if got := labelled(t, cli, label); len(got) != 0 {
		t.Fatalf("left behind after Stop: %v", got)
	}
	if err := clustertest.Client(t, addr, 200*time.Millisecond).Ping(ctx).Err(); err == nil {
		t.Fatal("a proxy still answers after Stop")
	}
	for what, err := range map[string]error{
		"Cut":            c.Cut(ctx, cluster.Links("c1", "n1")),
		"Restart":        c.Restart(ctx, "n1"),
		"DisconnectNode": c.DisconnectNode(ctx, "n1"),
		"HealAll":        c.HealAll(ctx),
	} {
		if !errors.Is(err, cluster.ErrStopped) {
			t.Errorf("%s after Stop = %v, want ErrStopped", what, err)
		}
	}
}

// StopAll (the path of Ctrl-C and of a failed check) removes a docker run.
func TestDockerStopAll(t *testing.T) {
	cli := dockerAPI(t)
	c, err := docker.Start(clustertest.Context(t, 20*time.Second), docker.Config{Nodes: 1, Image: clustertest.RedisImage})
	clustertest.Must(t, err)
	t.Cleanup(func() { _ = c.Stop() })
	clustertest.Must(t, cluster.StopAll())
	if got := labelled(t, cli, "lockstorm.run="+c.Run()); len(got) != 0 {
		t.Fatalf("left behind after StopAll: %v", got)
	}
}

// A new run sweeps what dead processes of this host left, and keeps what
// live processes and KeepContainers runs own.
func TestDockerSweepsDeadRuns(t *testing.T) {
	cli := dockerAPI(t)
	ctx := clustertest.Context(t, 20*time.Second)
	dead := exec.Command("true")
	clustertest.Must(t, dead.Run())
	host, _ := os.Hostname()
	mk := func(pid int, keep bool) string {
		run := fmt.Sprintf("%d-%d", pid, time.Now().UnixNano())
		labels := map[string]string{"lockstorm.run": run, "lockstorm.host": host}
		if keep {
			labels["lockstorm.keep"] = "true"
		}
		_, err := cli.NetworkCreate(ctx, "lockstorm-test-"+run, client.NetworkCreateOptions{Driver: "bridge", Labels: labels})
		clustertest.Must(t, err)
		_, err = cli.ContainerCreate(ctx, client.ContainerCreateOptions{
			Name:   "lockstorm-test-" + run,
			Config: &container.Config{Image: clustertest.RedisImage, Labels: labels},
		})
		clustertest.Must(t, err)
		t.Cleanup(func() {
			bg := context.Background()
			_, _ = cli.ContainerRemove(bg, "lockstorm-test-"+run, client.ContainerRemoveOptions{Force: true})
			_, _ = cli.NetworkRemove(bg, "lockstorm-test-"+run, client.NetworkRemoveOptions{})
		})
		return "lockstorm.run=" + run
	}
	deadRun := mk(dead.Process.Pid, false)
	keptRun := mk(dead.Process.Pid, true)
	liveRun := mk(os.Getppid(), false)

	clustertest.StartDocker(t, clustertest.Options{Nodes: 1})
	if got := labelled(t, cli, deadRun); len(got) != 0 {
		t.Fatalf("a dead run's leftovers survived the sweep: %v", got)
	}
	for _, l := range []string{keptRun, liveRun} {
		if got := labelled(t, cli, l); len(got) != 2 {
			t.Fatalf("%s: %v remain, want its container and network", l, got)
		}
	}
}

// KeepContainers leaves the killed containers (with their logs) and the
// networks after Stop.
func TestDockerKeepContainers(t *testing.T) {
	cli := dockerAPI(t)
	c := clustertest.StartDocker(t, clustertest.Options{Nodes: 1, KeepDir: true})
	label := "lockstorm.run=" + c.Run()
	t.Cleanup(func() {
		ctx := context.Background()
		_, _ = cli.ContainerRemove(ctx, c.ContainerID("n1"), client.ContainerRemoveOptions{Force: true})
		for _, n := range []string{c.Network(), c.Network() + "-pub"} {
			_, _ = cli.NetworkRemove(ctx, n, client.NetworkRemoveOptions{})
		}
	})
	clustertest.Must(t, c.Stop())
	if got := labelled(t, cli, label); len(got) != 3 {
		t.Fatalf("kept %v, want the container and both networks", got)
	}
	if c.Running("n1") {
		t.Fatal("a kept container is still running after Stop")
	}
}

// Bad input gives clear errors and leaves nothing behind.
func TestDockerBadInput(t *testing.T) {
	cli := dockerAPI(t)
	ctx := clustertest.Context(t, 20*time.Second)
	taken := "lockstorm-test-taken-" + fmt.Sprint(os.Getpid())
	_, err := cli.NetworkCreate(ctx, taken, client.NetworkCreateOptions{Driver: "bridge"})
	clustertest.Must(t, err)
	t.Cleanup(func() { _, _ = cli.NetworkRemove(context.Background(), taken, client.NetworkRemoveOptions{}) })
	before := len(labelled(t, cli, "lockstorm.run"))
	for _, tc := range []struct {
		cfg  docker.Config
		want string
	}{
		{docker.Config{Nodes: 0}, "at least 1"},
		{docker.Config{Nodes: 1, Persistence: "rdb"}, "persistence"},
		{docker.Config{Nodes: 1, Clients: []string{"a", "a"}}, "duplicate client"},
		{docker.Config{Nodes: 1, Network: taken, Image: clustertest.RedisImage}, "already exists"},
	} {
		c, err := docker.Start(ctx, tc.cfg)
		if err == nil {
			_ = c.Stop()
			t.Fatalf("StartDocker(%+v) succeeded", tc.cfg)
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("StartDocker(%+v): %q, want it to mention %q", tc.cfg, err, tc.want)
		}
	}
	if after := labelled(t, cli, "lockstorm.run"); len(after) != before {
		t.Fatalf("failed starts left %v", after)
	}
}

// startDockerReplicated starts one container with a replica container and
// the given promotion, stopped when the test ends.
func startDockerReplicated(t *testing.T, cfg docker.Config) *docker.Cluster {
	t.Helper()
	clustertest.NeedDocker(t)
	cfg.Nodes, cfg.Replica, cfg.Image = 1, true, clustertest.RedisImage
	return startPair(t, 60*time.Second, func(ctx context.Context) (*docker.Cluster, error) { return docker.Start(ctx, cfg) })
}

// checkDockerGone stops c and checks that none of its containers or
// networks remain.
func checkDockerGone(t *testing.T, c *docker.Cluster) {
	t.Helper()
	cli := dockerAPI(t)
	label := "lockstorm.run=" + c.Run()
	if got := labelled(t, cli, label); len(got) < 4 { // n1, n1-replica, two networks
		t.Fatalf("before Stop: %v", got)
	}
	clustertest.Must(t, c.Stop())
	if left := labelled(t, cli, label); len(left) != 0 {
		t.Fatalf("after Stop: %v", left)
	}
}

// Catalogue row 12 on docker, manual promotion: the replica replicates
// over the private network; with the replication link cut (n1 off that
// network) a lock taken on the master never reaches it; a partition
// failover promotes it and c2, through the same proxy address, takes the
// same lock; HealAll restores the pair; a kill failover works too; Stop
// removes every container and network.
func TestDockerFailoverManual(t *testing.T) {
	c := startDockerReplicated(t, docker.Config{ReplicaOptions: cluster.ReplicaOptions{Promotion: cluster.PromoteManual}, Clients: []string{"c1", "c2"}})
	ctx := clustertest.Context(t, 20*time.Second)
	if _, err := cluster.ReplicationOf(c); err != nil {
		t.Fatal(err)
	}
	c1 := clustertest.Dial(t, c, "c1", "n1", time.Second)
	rep := replicaClient(t, c)

	clustertest.Must(t, c1.Set(ctx, "k1", "v1", 0).Err())
	eventually(t, 3*time.Second, "k1 on the replica", func() error { return hasValue(ctx, rep, "k1", "v1") })
	clustertest.Must(t, c.CutReplication(ctx))
	if !c.ReplicationFaulty() {
		t.Fatal("ReplicationFaulty is false while the link is cut")
	}
	clustertest.Must(t, c1.Set(ctx, "k2", "v2", 0).Err())
	time.Sleep(300 * time.Millisecond)
	if n, _ := rep.Exists(ctx, "k2").Result(); n != 0 {
		t.Fatal("k2 reached the replica through a cut replication link")
	}
	clustertest.Must(t, c.HealReplication(ctx))
	eventually(t, 3*time.Second, "k2 on the replica after the heal", func() error { return hasValue(ctx, rep, "k2", "v2") })
	if err := c.DelayReplication(ctx, cluster.Latency{Delay: time.Millisecond}); !errors.Is(err, cluster.ErrUnsupported) {
		t.Fatalf("DelayReplication: %v, want ErrUnsupported", err)
	}

	start := time.Now()
	lockLostInFailover(t, c, ctx, c1, rep)
	clustertest.Must(t, c.HealAll(ctx))
	t.Logf("partition failover and HealAll took %v", time.Since(start).Round(time.Millisecond))
	checkRestored(t, c, ctx, "lock", "tok2")
	failoverByKillAndBack(t, c, ctx, c1, rep, func() bool { return !c.Running("n1") })
	checkDockerGone(t, c)
}

// With sentinel containers (the image's redis-server --sentinel), the
// failover is sentinel's own; after a failback the sentinel watches n1
// again and a partition failover goes through it too; Stop removes the
// sentinel container with the rest.
func TestDockerFailoverBySentinel(t *testing.T) {
	c := startDockerReplicated(t, docker.Config{})
	ctx := clustertest.Context(t, 20*time.Second)
	if c.Promotion() != cluster.PromoteSentinel || len(c.SentinelAddrs()) != 1 {
		t.Fatalf("promotion %q, sentinels %v: want auto to mean one sentinel", c.Promotion(), c.SentinelAddrs())
	}
	sentinelRoundTrip(t, c, ctx, func() bool { return c.Running("n1") }, sentinelChecks{})
	checkDockerGone(t, c)
}

// BenchmarkDockerStart measures starting and stopping a 3-node docker
// cluster (containers, networks, proxies).
func BenchmarkDockerStart(b *testing.B) {
	clustertest.NeedDocker(b)
	for b.Loop() {
		c, err := docker.Start(context.Background(), docker.Config{Nodes: 3, Image: clustertest.RedisImage})
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Stop(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDockerKillRestart measures a kill and restart of one node.
func BenchmarkDockerKillRestart(b *testing.B) {
	c := clustertest.StartDocker(b, clustertest.Options{Nodes: 1})
	ctx := context.Background()
	for b.Loop() {
		if err := c.Kill(ctx, "n1"); err != nil {
			b.Fatal(err)
		}
		if err := c.Restart(ctx, "n1"); err != nil {
			b.Fatal(err)
		}
	}
}
