package lockimpl

import (
	"github.com/lockstorm/lockstorm/lease"

	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Options configure every lock; each lock reads the fields it needs. Zero
// fields take the documented defaults (see WithDefaults). The harness hands
// a lock plugged in through config.Config.NewLock options already filled
// by WithDefaults.
type Options struct {
	// TTL is the lease time-to-live asked of each server. Default 1s.
	TTL time.Duration
	// RetryMin and RetryMax bound the randomised (jittered, exponential)
	// delay between two acquire attempts. Defaults 2ms and min(50ms, TTL/2).
	RetryMin time.Duration
	RetryMax time.Duration
	// Jitter is the random source of those delays, shared by every
	// goroutine using the lock. Default: a source seeded from crypto/rand
	// (two locks built without one do not draw the same delays). The
	// harness gives each client slot its own, seeded from the run's seed,
	// so runs with the same --seed draw the same delays per client.
	Jitter *Jitter
	// NodeTimeout bounds one command on one node: an acquire attempt, an
	// extend, a release. It should be small against the TTL. Default
	// TTL/10, at least 5ms.
	NodeTimeout time.Duration
	// DriftFactor is the fraction of the TTL reserved for clock drift
	// between client and servers: a lease's validity ends at
	// attemptStart + TTL - (TTL*DriftFactor + 2ms). Default 0.01; a
	// negative value means no proportional drift (the 2ms stay).
	DriftFactor float64
	// RenewEvery is the renewable lock's watchdog interval. Default TTL/3.
	RenewEvery time.Duration
	// WaiterTimeout is how long the fair lock keeps a queued waiter that
	// stopped polling (a crashed client) before dropping it, measured on the
	// server's clock. Default max(TTL, 5*RetryMax).
	WaiterTimeout time.Duration
	// RenewHook, when set, is told about every watchdog renewal: it is
	// called just before the renewal is sent and returns a function called
	// once with the outcome — nil means the lease was extended and Validity
	// is the new deadline; an error wrapping ErrNotHeld means certainly not
	// extended; any other error is unknown. Optional: the harness sees
	// every successful renewal through Lease.SetValidity anyway; calling
	// the hook as well only adds the renewal's start time and its failed
	// or unknown attempts to the history. The built-in renewable lock
	// calls it.
	RenewHook func(l *Lease) (done func(err error))
	// NodeNames names the nodes in client order, reported in Lease.Nodes.
	// Default "n1".."nN".
	NodeNames []string
}

// WithDefaults returns a copy with every zero field set, for a lock over n
// nodes (NodeNames gets n entries). Applying it twice changes nothing.
func (o Options) WithDefaults(n int) Options {
	if o.TTL <= 0 {
		o.TTL = lease.DefaultTTL
	}
	if o.RetryMin <= 0 {
		o.RetryMin = 2 * time.Millisecond
	}
	if o.RetryMax <= 0 {
		o.RetryMax = min(50*time.Millisecond, o.TTL/2)
	}
	if o.RetryMax < o.RetryMin {
		o.RetryMax = o.RetryMin
	}
	if o.Jitter == nil {
		o.Jitter = newRandomJitter()
	}
	if o.NodeTimeout <= 0 {
		o.NodeTimeout = max(o.TTL/10, 5*time.Millisecond)
	}
	if o.DriftFactor == 0 {
		o.DriftFactor = lease.DriftFactor
	} // negative stays negative (no proportional drift), so WithDefaults is idempotent
	if o.RenewEvery <= 0 {
		o.RenewEvery = o.TTL / 3
	}
	if o.WaiterTimeout <= 0 {
		o.WaiterTimeout = max(o.TTL, 5*o.RetryMax)
	}
	names := make([]string, n)
	for i := range names {
		if i < len(o.NodeNames) && o.NodeNames[i] != "" {
			names[i] = o.NodeNames[i]
		} else {
			names[i] = fmt.Sprintf("n%d", i+1)
		}
	}
	o.NodeNames = names
	return o
}

// drift is the validity allowance subtracted from the TTL.
func (o *Options) drift() time.Duration {
	return lease.Allowance(o.TTL, lease.FixedDrift, o.DriftFactor)
}

// Drift is the clock-drift allowance a lease's validity must leave:
// TTL·DriftFactor + 2ms (on options filled by WithDefaults).
func (o Options) Drift() time.Duration { return o.drift() }

// ValidUntil is the latest validity deadline a lock may claim for a grant
// (or renewal) whose command was sent at start: start + TTL − Drift. A
// lock plugged into the harness must never claim more.
func (o Options) ValidUntil(start time.Time) time.Time { return o.validUntil(start) }

// validUntil is the monotonic validity deadline of a grant whose command
// was sent no earlier than start: the server's TTL cannot have started
// before start.
func (o *Options) validUntil(start time.Time) time.Time {
	return start.Add(o.TTL - o.drift())
}

// ClientOptions returns the go-redis options the locks expect for a node
// (or proxy) at addr: context deadlines honoured (so NodeTimeout works)
// and no automatic command retries. A silent retry of a SET whose reply
// was lost would report "taken" for a lock the caller actually got, and a
// retried release would report "not held" for a release that happened.
func ClientOptions(addr string) *redis.Options {
	return &redis.Options{
		Addr:                  addr,
		MaxRetries:            -1,
		ContextTimeoutEnabled: true,
		DialTimeout:           time.Second,
		ReadTimeout:           3 * time.Second,
		WriteTimeout:          3 * time.Second,
		DisableIdentity:       true,
	}
}

// NewClient is redis.NewClient(ClientOptions(addr)).
func NewClient(addr string) *redis.Client { return redis.NewClient(ClientOptions(addr)) }
