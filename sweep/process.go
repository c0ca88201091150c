package sweep

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lockstorm/lockstorm/config"
	"github.com/lockstorm/lockstorm/zoo"
)

// Process is a lock under test that runs as process clients (the client
// line protocol, docs/client-protocol.md) instead of lockstorm's own
// single, renewable and fenced locks: every cell runs the same command,
// and the cell's TTL and renewal reach it as LOCKSTORM_TTL_MS and
// LOCKSTORM_RENEW_MS (unset for renewal none), which the client maps
// onto its library's settings.
type Process struct {
	// Cmd is the command run for each client slot, in Dir.
	Cmd string `json:"cmd"`
	Dir string `json:"dir,omitempty"`
	// Label names the lock in titles, run names and the store.
	Label string `json:"label"`
	// Nodes is the number of Redis nodes (default 1).
	Nodes int `json:"nodes,omitempty"`
	// Fences is true when the lock is known to issue fencing tokens (a
	// zoo entry's fencing: true); FencesUnknown when nothing says (a bare
	// --client-cmd), which lets the fencing axis run as the user asks.
	Fences, FencesUnknown bool `json:"-"`
	// NodeTimeout is the bound of one command on one node (the entry's
	// node_timeout); 0 for lockstorm's default.
	NodeTimeout time.Duration `json:"node_timeout_ns,omitempty"`
	// From is the flag that named the process: --zoo-entry or
	// --client-cmd (errors name it).
	From string `json:"-"`
	// Watchdog is true for a library that renews by itself (renewal:
	// watchdog): by default its holders hold one to two TTLs, trusting the
	// library to tell them of a lost lease.
	Watchdog bool `json:"watchdog,omitempty"`
}

// ResolveProcess is the lock under test that a command's --zoo-entry or
// --client-cmd (with --client-dir and --lock) names, and its Subject; nil
// when none is given (lockstorm's own locks). Errors wrap ErrSpec.
func ResolveProcess(ctx context.Context, zooEntry, clientCmd, clientDir, lock string) (*Process, Subject, error) {
	switch {
	case zooEntry != "" && (clientCmd != "" || clientDir != "" || lock != ""):
		return nil, Subject{}, bad("--zoo-entry names the client, its folder and its lock: give it without --client-cmd, --client-dir or --lock")
	case zooEntry != "":
		return ZooEntry(ctx, zooEntry)
	case clientCmd != "":
		p, err := ClientProcess(clientCmd, clientDir, lock)
		if err != nil {
			return nil, Subject{}, err
		}
		return p, Subject{Label: p.Label, NoTokens: !p.Fences && !p.FencesUnknown}, nil
	case clientDir != "":
		return nil, Subject{}, bad("--client-dir names a --client-cmd's folder: give --client-cmd (or --zoo-entry)")
	}
	return nil, Subject{}, nil
}

// ZooEntry reads the zoo entry in dir and prepares it to run: its
// requires check, then its build (skipped while its folder is unchanged).
// It returns the entry's process client and the library's names of the
// sweep's settings (the manifest's settings: map). Errors wrap ErrSpec
// and say what is wrong in one line.
func ZooEntry(ctx context.Context, dir string) (*Process, Subject, error) {
	if st, err := os.Stat(filepath.Join(dir, zoo.ManifestFile)); err != nil || !st.Mode().IsRegular() {
		return nil, Subject{}, bad("--zoo-entry %s is not a zoo entry (a folder with a %s)", dir, zoo.ManifestFile)
	}
	entries, err := zoo.Load(dir)
	if err != nil {
		return nil, Subject{}, bad("--zoo-entry: %v", err)
	}
	e := entries[0]
	if why := zoo.SkipReason(ctx, e); why != "" {
		return nil, Subject{}, bad("--zoo-entry %s cannot run here: %s", dir, why)
	}
	if _, err := zoo.Build(ctx, e); err != nil {
		return nil, Subject{}, bad("--zoo-entry %s: %s", dir, oneLine(err.Error()))
	}
	p := &Process{Cmd: e.Client, Dir: e.Dir, Label: e.Name, Nodes: e.Nodes, Fences: e.Fencing,
		NodeTimeout: e.NodeTimeoutDuration(), Watchdog: e.Renewal == zoo.RenewalWatchdog, From: "--zoo-entry"}
	return p, Subject{Label: e.Name, TTL: e.Settings["ttl"], Renew: e.Settings["renew"], NoTokens: !e.Fencing}, nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// ClientProcess is the process client of a bare --client-cmd: label is
// --lock when given (a built-in lock's name makes its fencing known),
// else "client".
func ClientProcess(cmd, dir, label string) (*Process, error) {
	if _, err := config.SplitCommand(cmd); err != nil {
		return nil, bad("--client-cmd: %v", err)
	}
	if label == "" {
		label = "client"
	}
	p := &Process{Cmd: cmd, Dir: dir, Label: label, Nodes: 1, FencesUnknown: true, From: "--client-cmd"}
	if slices.Contains(config.LockNames(), label) {
		p.Fences, p.FencesUnknown = config.IssuesFences(label), false
	}
	return p, nil
}

// check refuses a grid the process cannot run.
func (p *Process) check(s Spec) error {
	if s.Topology != config.TopologyStandalone {
		return bad("--topology %s: process clients (--client-cmd, --zoo-entry) run on standalone nodes", s.Topology)
	}
	if slices.Contains(s.Grid.Fencing, true) && !p.Fences && !p.FencesUnknown {
		return bad("--fencing-axis on needs a lock that issues fencing tokens: %s's %s does not", p.From, p.Label)
	}
	return nil
}

// String is the process as a stored sweep's key names it.
func (p *Process) String() string {
	if p == nil {
		return ""
	}
	return fmt.Sprintf("%s (%s)", p.Label, p.Cmd)
}
