package docker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/moby/moby/api/types/network"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/lockstorm/lockstorm/cluster"
	"github.com/lockstorm/lockstorm/cluster/internal/host"
	"github.com/lockstorm/lockstorm/cluster/internal/redisadmin"
)

// redisPort is the port Redis listens on inside every container.
const redisPort = "6379/tcp"

// node is one Redis container (a node, the replica or a sentinel):
// the docker provider's cluster.Process. Its fields other than name are
// set by create and then changed only with the cluster's lock held.
type node struct {
	d            *Cluster
	name         string
	ctr          *testcontainers.DockerContainer
	id           string
	port         int // published on 127.0.0.1
	state        cluster.NodeState
	disconnected bool // from the private network
	// sentinelConf, when set, makes the container a sentinel with this
	// configuration (redis-server <conf> --sentinel) instead of a server.
	sentinelConf []byte
}

// sentinelConfPath is where a sentinel container's configuration lives
// (sentinels rewrite it, so it is a copied file, not a mount).
const sentinelConfPath = "/etc/lockstorm-sentinel.conf"

// newContainer describes a container not created yet.
func (d *Cluster) newContainer(name string, sentinelConf []byte) *node {
	return &node{d: d, name: name, state: cluster.NodeDown, sentinelConf: sentinelConf}
}

// Name is the node's name.
func (n *node) Name() string { return n.name }

// Addr is the node's published address on this host.
func (n *node) Addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port)) }

// State is the container's state as last driven.
func (n *node) State() cluster.NodeState { return n.state }

// redisArgs are the redis-server options for a persistence mode. Data
// lives in /data; with PersistNone nothing is ever written there (and it is
// a tmpfs, emptied when the container stops).
func redisArgs(p cluster.Persistence) []string {
	args := []string{
		"--port", "6379", "--bind", "0.0.0.0", "--protected-mode", "no",
		"--dir", "/data", "--save", "", "--repl-diskless-sync-delay", "0",
	}
	switch p {
	case cluster.PersistAOFEverysec:
		return append(args, "--appendonly", "yes", "--appendfsync", "everysec")
	case cluster.PersistAOFAlways:
		return append(args, "--appendonly", "yes", "--appendfsync", "always")
	default:
		return append(args, "--appendonly", "no")
	}
}

// create runs the container on a free published port, retrying on
// another port if the chosen one was taken before Docker bound it, and
// waits until Redis answers.
func (n *node) create(ctx context.Context) error {
	err := host.OnFreePort(func(port int) error {
		n.port = port
		err := n.run(ctx)
		if err != nil && isPortConflict(err) && n.id != "" {
			_ = removeContainer(ctx, n.d.cli, n.id)
			n.id, n.ctr = "", nil
		}
		return err
	}, isPortConflict)
	if err != nil {
		return fmt.Errorf("cluster: node %s (image %s): %w%s", n.name, n.d.cfg.Image, err, pullHint(err))
	}
	n.state = cluster.NodeRunning
	return n.waitReady(ctx)
}

// run creates and starts the container through testcontainers.
func (n *node) run(ctx context.Context) error {
	d := n.d
	binding := network.PortMap{
		network.MustParsePort(redisPort): {{HostIP: netip.MustParseAddr("127.0.0.1"), HostPort: strconv.Itoa(n.port)}},
	}
	opts := []testcontainers.ContainerCustomizer{
		testcontainers.WithLogger(d.logger),
		testcontainers.WithName(fmt.Sprintf("lockstorm-%s-%s", d.run, n.name)),
		testcontainers.WithCmd(redisArgs(d.cfg.Persistence)...),
		testcontainers.WithExposedPorts(redisPort),
		testcontainers.WithLabels(d.labels(n.name)),
		testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.PortBindings = binding
		}),
		testcontainers.CustomizeRequestOption(func(req *testcontainers.GenericContainerRequest) error {
			// The publishing network first: Docker publishes ports on the
			// container's first network, and the private one is internal.
			req.Networks = []string{d.nets.pub, d.nets.priv}
			req.NetworkAliases = map[string][]string{d.nets.priv: {n.name}}
			return nil
		}),
	}
	if n.sentinelConf != nil {
		opts = append(opts, testcontainers.WithCmd(sentinelConfPath, "--sentinel"), testcontainers.WithFiles(
			testcontainers.ContainerFile{Reader: bytes.NewReader(n.sentinelConf), ContainerFilePath: sentinelConfPath, FileMode: 0o644}))
	}
	if d.cfg.Persistence == cluster.PersistNone {
		opts = append(opts, testcontainers.WithTmpfs(map[string]string{"/data": "rw"}))
	}
	ctr, err := testcontainers.Run(ctx, d.cfg.Image, opts...)
	if ctr != nil {
		n.ctr, n.id = ctr, ctr.GetContainerID()
	}
	return err
}

// isPortConflict reports whether a container failed to start because its
// host port was taken.
func isPortConflict(err error) bool {
	s := err.Error()
	return strings.Contains(s, "port is already allocated") || strings.Contains(s, "address already in use")
}

// waitReady polls the node's published port until Redis answers INFO (a
// server still loading its AOF answers with an error, which is retried),
// failing early with the container's last log lines if it has exited.
func (n *node) waitReady(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, host.ReadyTimeout)
	defer cancel()
	var last error
	for i := 0; ; i++ {
		if _, last = redisadmin.ServerPid(ctx, n.Addr()); last == nil {
			return nil
		}
		if i%10 == 9 && !n.running(ctx) {
			return fmt.Errorf("cluster: node %s: container exited: %s", n.name, n.LogTail())
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: node %s did not answer on %s within %v: %v; log: %s",
				n.name, n.Addr(), host.ReadyTimeout, last, n.LogTail())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// running asks Docker whether the container is running.
func (n *node) running(ctx context.Context) bool {
	res, err := n.d.cli.ContainerInspect(ctx, n.id, client.ContainerInspectOptions{})
	return err == nil && res.Container.State != nil && res.Container.State.Running
}

// LogTail is the end of the container's log, for error messages.
func (n *node) LogTail() string {
	if n.ctr == nil {
		return "(no container)"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rc, err := n.ctr.Logs(ctx)
	if err != nil {
		return "(no log: " + err.Error() + ")"
	}
	defer rc.Close()
	b, _ := io.ReadAll(io.LimitReader(rc, 1<<20))
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return strings.Join(lines, " | ")
}

// Pause freezes every process of a running container (docker pause, the
// cgroup freezer).
func (n *node) Pause(ctx context.Context) error {
	switch n.state {
	case cluster.NodePaused:
		return nil
	case cluster.NodeDown:
		return fmt.Errorf("cluster: pause %s: node is down", n.name)
	}
	if _, err := n.d.cli.ContainerPause(ctx, n.id, client.ContainerPauseOptions{}); err != nil {
		return fmt.Errorf("cluster: pause %s: %w", n.name, err)
	}
	n.state = cluster.NodePaused
	return nil
}

// Resume unfreezes a paused container (docker unpause); other states are
// left alone.
func (n *node) Resume(ctx context.Context) error {
	if n.state != cluster.NodePaused {
		return nil
	}
	if _, err := n.d.cli.ContainerUnpause(ctx, n.id, client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("cluster: resume %s: %w", n.name, err)
	}
	n.state = cluster.NodeRunning
	return nil
}

// Kill sends SIGKILL (docker kill, even when paused) and waits until
// Docker reports the container stopped.
func (n *node) Kill(ctx context.Context) error {
	if n.state == cluster.NodeDown || n.id == "" {
		return nil
	}
	if _, err := n.d.cli.ContainerKill(ctx, n.id, client.ContainerKillOptions{Signal: "KILL"}); err != nil &&
		!strings.Contains(err.Error(), "is not running") {
		return fmt.Errorf("cluster: kill %s: %w", n.name, err)
	}
	n.state = cluster.NodeDown
	ctx, cancel := context.WithTimeout(ctx, host.ReadyTimeout)
	defer cancel()
	for n.running(ctx) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: kill %s: container still running after %v", n.name, host.ReadyTimeout)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// Restart starts a killed container again (docker start: same container,
// same published port, same persistence; with PersistNone its /data is a
// tmpfs, so it comes back empty) and waits until it answers.
func (n *node) Restart(ctx context.Context) error {
	if n.state != cluster.NodeDown {
		return fmt.Errorf("cluster: restart %s: node is not down", n.name)
	}
	if _, err := n.d.cli.ContainerStart(ctx, n.id, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("cluster: restart %s on %s: %w", n.name, n.Addr(), err)
	}
	n.state = cluster.NodeRunning
	return n.waitReady(ctx)
}

// disconnect takes the node off the private network.
func (n *node) disconnect(ctx context.Context) error {
	if n.disconnected {
		return nil
	}
	priv := n.d.nets.priv
	if _, err := n.d.cli.NetworkDisconnect(ctx, priv, client.NetworkDisconnectOptions{Container: n.id, Force: true}); err != nil {
		return fmt.Errorf("cluster: disconnect %s from %s: %w", n.name, priv, err)
	}
	n.disconnected = true
	return nil
}

// reconnect puts the node back on the private network under its name.
func (n *node) reconnect(ctx context.Context) error {
	if !n.disconnected {
		return nil
	}
	priv := n.d.nets.priv
	_, err := n.d.cli.NetworkConnect(ctx, priv, client.NetworkConnectOptions{
		Container:      n.id,
		EndpointConfig: &network.EndpointSettings{Aliases: []string{n.name}},
	})
	if err != nil {
		return fmt.Errorf("cluster: reconnect %s to %s: %w", n.name, priv, err)
	}
	n.disconnected = false
	return nil
}

// pullHint says what to do when Docker could not fetch the image (no
// registry reachable, or no such image): build lockstorm/redis:7 from the
// installed redis-server and use it. "" for any other error.
func pullHint(err error) string {
	msg := strings.ToLower(err.Error())
	for _, sign := range []string{"registry", "pull access denied", "manifest unknown", "no such image", "not found: manifest"} {
		if strings.Contains(msg, sign) {
			return " (the image is not here and cannot be pulled: run `make docker-image` to build lockstorm/redis:7 from the installed redis-server, then pass --docker-image lockstorm/redis:7)"
		}
	}
	return ""
}
