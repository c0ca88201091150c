package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/containerd/errdefs"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/lockstorm/lockstorm/cluster/internal/host"
)

// Labels on every container and network the docker provider creates.
const (
	labelRun  = "lockstorm.run"  // <pid>-<n> of the creating process
	labelHost = "lockstorm.host" // hostname of the creating process
	labelNode = "lockstorm.node" // node name (containers only)
	labelKeep = "lockstorm.keep" // "true": KeepContainers, never swept
)

// ryukEnv disables testcontainers' Ryuk container, whose image cannot be
// pulled where no registry is reachable; the provider cleans up itself.
const ryukEnv = "TESTCONTAINERS_RYUK_DISABLED"

// hostname names this host in labels; a sweep only judges containers
// created on the same host (pids mean nothing elsewhere).
func hostname() string {
	h, _ := os.Hostname()
	return h
}

// ErrNoDaemon means no Docker daemon answered.
var ErrNoDaemon = errors.New("cluster: no Docker daemon answers")

// tcLogger adapts an io.Writer to testcontainers' logger; nil discards.
type tcLogger struct{ w io.Writer }

// Printf writes one log line.
func (l tcLogger) Printf(format string, v ...any) {
	if l.w != nil {
		fmt.Fprintf(l.w, strings.TrimSuffix(format, "\n")+"\n", v...)
	}
}

func newTCLogger(w io.Writer) tcLogger { return tcLogger{w} }

// tcDefaultLog routes testcontainers' global log (it prints a banner when
// it first connects) to the first docker run's logger.
var tcDefaultLog sync.Once

// dockerClient disables Ryuk unless the environment says otherwise, then
// connects to the Docker daemon (DOCKER_HOST or the default socket) and
// pings it. testcontainers reads its configuration once per process, so
// the environment must be set before any other testcontainers use.
func dockerClient(ctx context.Context, logger tcLogger) (*testcontainers.DockerClient, error) {
	if os.Getenv(ryukEnv) == "" {
		_ = os.Setenv(ryukEnv, "true")
	}
	tcDefaultLog.Do(func() { tclog.SetDefault(logger) })
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDaemon, err)
	}
	if _, err := cli.Ping(ctx, client.PingOptions{}); err != nil {
		_ = cli.Close()
		return nil, fmt.Errorf("%w: %v", ErrNoDaemon, err)
	}
	return cli, nil
}

// Available reports whether a Docker daemon answers, and if not why
// (wrapping ErrNoDaemon).
func Available(ctx context.Context) error {
	cli, err := dockerClient(ctx, tcLogger{})
	if err != nil {
		return err
	}
	return cli.Close()
}

// dockerNets names the run's two networks: priv is internal (no route
// out) and carries traffic between containers, which find each other by
// node name; pub only publishes ports to the host and forbids traffic
// between containers (enable_icc=false), so that taking a node off priv is
// a real partition between nodes.
type dockerNets struct{ priv, pub string }

// createNetworks creates both networks; on error, the returned value names
// those that were created.
func createNetworks(ctx context.Context, cli *testcontainers.DockerClient, name string, labels map[string]string) (dockerNets, error) {
	var nets dockerNets
	for _, n := range []string{name, name + "-pub"} {
		if _, err := cli.NetworkInspect(ctx, n, client.NetworkInspectOptions{}); err == nil {
			return nets, fmt.Errorf("cluster: docker network %q already exists", n)
		}
	}
	opts := client.NetworkCreateOptions{Driver: "bridge", Internal: true, Labels: labels}
	if _, err := cli.NetworkCreate(ctx, name, opts); err != nil {
		return nets, fmt.Errorf("cluster: create docker network %s: %w", name, err)
	}
	nets.priv = name
	opts = client.NetworkCreateOptions{
		Driver:  "bridge",
		Labels:  labels,
		Options: map[string]string{"com.docker.network.bridge.enable_icc": "false"},
	}
	if _, err := cli.NetworkCreate(ctx, name+"-pub", opts); err != nil {
		return nets, fmt.Errorf("cluster: create docker network %s-pub: %w", name, err)
	}
	nets.pub = name + "-pub"
	return nets, nil
}

// remove removes the networks that exist.
func (n dockerNets) remove(ctx context.Context, cli *testcontainers.DockerClient) error {
	var errs []error
	for _, name := range []string{n.priv, n.pub} {
		if name == "" {
			continue
		}
		if _, err := cli.NetworkRemove(ctx, name, client.NetworkRemoveOptions{}); err != nil && !errdefs.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("cluster: remove docker network %s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// removeContainer removes a container, running or not, with its anonymous
// volumes. A container already gone is not an error.
func removeContainer(ctx context.Context, cli *testcontainers.DockerClient, id string) error {
	_, err := cli.ContainerRemove(ctx, id, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	if err != nil && !errdefs.IsNotFound(err) {
		return fmt.Errorf("cluster: remove container %.12s: %w", id, err)
	}
	return nil
}

// sweepDocker removes, best effort, the containers and then the networks
// left by lockstorm processes on this host that no longer exist (killed
// before Stop could run), except those kept on purpose.
func sweepDocker(ctx context.Context, cli *testcontainers.DockerClient) {
	f := client.Filters{}.Add("label", labelRun)
	if cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f}); err == nil {
		for _, c := range cs.Items {
			if staleRun(c.Labels) {
				_ = removeContainer(ctx, cli, c.ID)
			}
		}
	}
	if ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: f}); err == nil {
		for _, n := range ns.Items {
			if staleRun(n.Labels) {
				_, _ = cli.NetworkRemove(ctx, n.ID, client.NetworkRemoveOptions{})
			}
		}
	}
}

// staleRun reports whether labels belong to a dead process of this host
// and were not kept on purpose.
func staleRun(labels map[string]string) bool {
	if labels[labelHost] != hostname() || labels[labelKeep] == "true" {
		return false
	}
	pidStr, _, _ := strings.Cut(labels[labelRun], "-")
	pid, err := strconv.Atoi(pidStr)
	return err == nil && pid > 0 && pid != os.Getpid() && !host.ProcessAlive(pid)
}
