package procclient

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lockstorm/lockstorm/internal/child"
	"github.com/lockstorm/lockstorm/internal/pauseclock"
	"github.com/lockstorm/lockstorm/lease"
	"github.com/lockstorm/lockstorm/lockimpl"
	"github.com/lockstorm/lockstorm/protocol"
)

// Config starts one client process.
type Config struct {
	// Argv is the command and its arguments (required); Argv[0] is looked
	// up in PATH.
	Argv []string
	// Env is KEY=VALUE pairs added to os.Environ() (the harness passes the
	// LOCKSTORM_* variables of package protocol).
	Env []string
	// Dir is the working directory ("" = the current one).
	Dir string
	// Name names the client in log lines and errors ("client c1 pid
	// 1234: ..."); "" = the base name of Argv[0].
	Name string
	// TTL is the lease time-to-live: sent as ttl_ms of every acquire, and
	// the cap of every validity (send time + TTL − drift allowance).
	// 0 = lease.DefaultTTL.
	TTL time.Duration
	// Grace is how long past a request's timeout the client may take to
	// answer, in running time of Clock, before it counts as not answering
	// (it is then killed). 0 = 1s.
	Grace time.Duration
	// Log receives one line per client error, and each line the client
	// writes to stderr prefixed "stderr: ". nil drops them. It is called
	// from the Client's goroutines and must not block for long.
	Log func(line string)
	// Clock is the process's running-time clock: Pause and Resume drive
	// it, and the grace after a request's timeout counts only while it
	// runs. nil = a fresh clock. Kill and Close resume it.
	Clock *pauseclock.Clock
}

// defaults fills the zero fields of cfg.
func (cfg Config) defaults() Config {
	if cfg.TTL <= 0 {
		cfg.TTL = lease.DefaultTTL
	}
	if cfg.Grace <= 0 {
		cfg.Grace = time.Second
	}
	if cfg.Log == nil {
		cfg.Log = func(string) {}
	}
	if cfg.Clock == nil {
		cfg.Clock = &pauseclock.Clock{}
	}
	if cfg.Name == "" && len(cfg.Argv) > 0 {
		cfg.Name = filepath.Base(cfg.Argv[0])
	}
	return cfg
}

// Client is the harness side of one client process: a lockimpl.Locker and
// lockimpl.Extender whose operations are requests to the process (see the
// package documentation). Safe for concurrent use.
type Client struct {
	cfg      Config
	cmd      *exec.Cmd
	pid      int
	conn     *protocol.Conn
	stdin    *os.File // our end of the client's stdin
	stdout   *os.File // our end of the client's stdout
	stderr   *os.File // our end of the client's stderr
	maxValid time.Duration
	nextID   atomic.Int64
	sendMu   sync.Mutex // draws an id and writes its request as one step

	mu     sync.Mutex
	calls  map[int64]*call            // requests awaiting their answer, by id
	leases map[string]*lockimpl.Lease // leases granted and not released, by token
	err    error                      // why broken closed

	breakOnce sync.Once
	broken    chan struct{} // closed by breakWith

	sigMu  sync.Mutex
	reaped bool // the process was waited for: its pid may be reused

	closing   atomic.Bool
	closeOnce sync.Once

	exited     chan struct{} // closed when the process was reaped
	readerDone chan struct{} // closed when the stdout reader returned
	stderrDone chan struct{} // closed when the stderr reader returned
	done       chan struct{} // closed when every pipe is closed and both readers returned
	orphans    sync.WaitGroup
	status     string // how the process ended ("exited with status 1"), set before exited closes
}

// Start starts the client process in its own process group, with pipes
// to its stdin, stdout and stderr. A command that cannot start is an
// error naming it. ctx bounds only the start: the process lives until
// Close or Kill (or its own exit).
func Start(ctx context.Context, cfg Config) (*Client, error) {
	if len(cfg.Argv) == 0 || cfg.Argv[0] == "" {
		return nil, errors.New("procclient: start: no command (Config.Argv is empty)")
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("procclient: start %q: %w", cfg.Argv[0], err)
	}
	cfg = cfg.defaults()
	cmd := exec.Command(cfg.Argv[0], cfg.Argv[1:]...)
	cmd.Env = append(os.Environ(), cfg.Env...)
	cmd.Dir = cfg.Dir
	c := &Client{
		cfg: cfg, cmd: cmd,
		maxValid:   cfg.TTL - lease.Allowance(cfg.TTL, lease.FixedDrift, lease.DriftFactor),
		calls:      map[int64]*call{},
		leases:     map[string]*lockimpl.Lease{},
		broken:     make(chan struct{}),
		exited:     make(chan struct{}),
		readerDone: make(chan struct{}),
		stderrDone: make(chan struct{}),
		done:       make(chan struct{}),
	}
	if err := c.spawn(); err != nil {
		return nil, fmt.Errorf("procclient: start %q: %w", strings.Join(cfg.Argv, " "), err)
	}
	c.conn = protocol.NewConn(c.stdin, c.stdout)
	go c.read()
	go c.readStderr()
	go c.wait()
	return c, nil
}

// spawn makes the three pipes and starts the process with its ends of
// them; on error nothing is left open.
func (c *Client) spawn() error {
	var theirs [3]*os.File // the process's stdin, stdout, stderr
	var ours [3]*os.File
	closeAll := func(fs []*os.File) {
		for _, f := range fs {
			if f != nil {
				f.Close()
			}
		}
	}
	for i := range theirs {
		r, w, err := os.Pipe()
		if err != nil {
			closeAll(theirs[:])
			closeAll(ours[:])
			return err
		}
		if i == 0 {
			theirs[i], ours[i] = r, w
		} else {
			theirs[i], ours[i] = w, r
		}
	}
	c.cmd.Stdin, c.cmd.Stdout, c.cmd.Stderr = theirs[0], theirs[1], theirs[2]
	err := child.Start(c.cmd)
	closeAll(theirs[:]) // the process holds its own copies
	if err != nil {
		closeAll(ours[:])
		return err
	}
	c.stdin, c.stdout, c.stderr = ours[0], ours[1], ours[2]
	c.pid = c.cmd.Process.Pid
	return nil
}

// Pid is the client process's id, also its process group's id.
func (c *Client) Pid() int { return c.pid }

// who names the client in log lines and errors.
func (c *Client) who() string { return fmt.Sprintf("client %s pid %d", c.cfg.Name, c.pid) }

// logf logs one line about the client.
func (c *Client) logf(format string, a ...any) {
	c.cfg.Log(c.who() + ": " + fmt.Sprintf(format, a...))
}
