package cluster

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
)

// redisPort is the port Redis listens on inside every container.
const redisPort = "6379/tcp"

// dockerNode is one Redis container. Its fields other than name are set by
// create and then changed only with Docker.mu held.
type dockerNode struct {
	name         string
	ctr          *testcontainers.DockerContainer
	id           string
	port         int // published on 127.0.0.1
	state        nodeState
	disconnected bool // from the private network
	// sentinelConf, when set, makes the container a sentinel with this
	// configuration (redis-server <conf> --sentinel) instead of a server.
	sentinelConf []byte
}

// sentinelConfPath is where a sentinel container's configuration lives
// (sentinels rewrite it, so it is a copied file, not a mount).
const sentinelConfPath = "/etc/lockstorm-sentinel.conf"

// addr is the node's published address on this host.
func (n *dockerNode) nodeName() string { return n.name }

func (n *dockerNode) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(n.port)) }

// redisArgs are the redis-server options for a persistence mode. Data
// lives in /data; with PersistNone nothing is ever written there (and it is
// a tmpfs, emptied when the container stops).
func redisArgs(p Persistence) []string {
	args := []string{
		"--port", "6379", "--bind", "0.0.0.0", "--protected-mode", "no",
		"--dir", "/data", "--save", "", "--repl-diskless-sync-delay", "0",
	}
	switch p {
	case PersistAOFEverysec:
		return append(args, "--appendonly", "yes", "--appendfsync", "everysec")
	case PersistAOFAlways:
		return append(args, "--appendonly", "yes", "--appendfsync", "always")
	default:
		return append(args, "--appendonly", "no")
	}
}

// create runs the node's container on a free published port, retrying on
// another port if the chosen one was taken before Docker bound it, and
// waits until Redis answers.
func (d *Docker) create(ctx context.Context, n *dockerNode) error {
	var err error
	for try := 0; try < maxPortTries; try++ {
		if n.port, err = freePort(); err != nil {
			return err
		}
		err = d.runContainer(ctx, n)
		if err == nil || !isPortConflict(err) {
			break
		}
		if n.id != "" {
			_ = removeContainer(ctx, d.cli, n.id)
			n.id, n.ctr = "", nil
		}
	}
	if err != nil {
		return fmt.Errorf("cluster: node %s (image %s): %w", n.name, d.cfg.Image, err)
	}
	n.state = nodeRunning
	return d.waitReady(ctx, n)
}

// runContainer creates and starts the container through testcontainers.
func (d *Docker) runContainer(ctx context.Context, n *dockerNode) error {
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
	if d.cfg.Persistence == PersistNone {
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
func (d *Docker) waitReady(ctx context.Context, n *dockerNode) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	var last error
	for i := 0; ; i++ {
		if _, last = serverPid(ctx, n.addr()); last == nil {
			return nil
		}
		if i%10 == 9 && !d.containerRunning(ctx, n) {
			return fmt.Errorf("cluster: node %s: container exited: %s", n.name, d.logTail(n))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: node %s did not answer on %s within %v: %v; log: %s",
				n.name, n.addr(), readyTimeout, last, d.logTail(n))
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// containerRunning asks Docker whether the container is running.
func (d *Docker) containerRunning(ctx context.Context, n *dockerNode) bool {
	res, err := d.cli.ContainerInspect(ctx, n.id, client.ContainerInspectOptions{})
	return err == nil && res.Container.State != nil && res.Container.State.Running
}

// logTail is the end of the container's log, for error messages.
func (d *Docker) logTail(n *dockerNode) string {
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

// pause freezes a running node.
func (d *Docker) pause(ctx context.Context, n *dockerNode) error {
	switch n.state {
	case nodePaused:
		return nil
	case nodeDown:
		return fmt.Errorf("cluster: pause %s: node is down", n.name)
	}
	if _, err := d.cli.ContainerPause(ctx, n.id, client.ContainerPauseOptions{}); err != nil {
		return fmt.Errorf("cluster: pause %s: %w", n.name, err)
	}
	n.state = nodePaused
	return nil
}

// resume unfreezes a paused node; other states are left alone.
func (d *Docker) resume(ctx context.Context, n *dockerNode) error {
	if n.state != nodePaused {
		return nil
	}
	if _, err := d.cli.ContainerUnpause(ctx, n.id, client.ContainerUnpauseOptions{}); err != nil {
		return fmt.Errorf("cluster: resume %s: %w", n.name, err)
	}
	n.state = nodeRunning
	return nil
}

// kill sends SIGKILL and waits until Docker reports the container stopped.
func (d *Docker) kill(ctx context.Context, n *dockerNode) error {
	if n.state == nodeDown || n.id == "" {
		return nil
	}
	if _, err := d.cli.ContainerKill(ctx, n.id, client.ContainerKillOptions{Signal: "KILL"}); err != nil &&
		!strings.Contains(err.Error(), "is not running") {
		return fmt.Errorf("cluster: kill %s: %w", n.name, err)
	}
	n.state = nodeDown
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	for d.containerRunning(ctx, n) {
		select {
		case <-ctx.Done():
			return fmt.Errorf("cluster: kill %s: container still running after %v", n.name, readyTimeout)
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// restart starts a killed node's container again and waits until it answers.
func (d *Docker) restart(ctx context.Context, n *dockerNode) error {
	if n.state != nodeDown {
		return fmt.Errorf("cluster: restart %s: node is not down", n.name)
	}
	if _, err := d.cli.ContainerStart(ctx, n.id, client.ContainerStartOptions{}); err != nil {
		return fmt.Errorf("cluster: restart %s on %s: %w", n.name, n.addr(), err)
	}
	n.state = nodeRunning
	return d.waitReady(ctx, n)
}

// disconnect takes the node off the private network.
func (d *Docker) disconnect(ctx context.Context, n *dockerNode) error {
	if n.disconnected {
		return nil
	}
	_, err := d.cli.NetworkDisconnect(ctx, d.nets.priv, client.NetworkDisconnectOptions{Container: n.id, Force: true})
	if err != nil {
		return fmt.Errorf("cluster: disconnect %s from %s: %w", n.name, d.nets.priv, err)
	}
	n.disconnected = true
	return nil
}

// reconnect puts the node back on the private network under its name.
func (d *Docker) reconnect(ctx context.Context, n *dockerNode) error {
	if !n.disconnected {
		return nil
	}
	_, err := d.cli.NetworkConnect(ctx, d.nets.priv, client.NetworkConnectOptions{
		Container:      n.id,
		EndpointConfig: &network.EndpointSettings{Aliases: []string{n.name}},
	})
	if err != nil {
		return fmt.Errorf("cluster: reconnect %s to %s: %w", n.name, d.nets.priv, err)
	}
	n.disconnected = false
	return nil
}
