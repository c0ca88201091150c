package harness

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
)

// targetWait bounds how long a targeted fault waits for a client in the
// wanted state (between two holders, nobody holds for a moment).
const targetWait = 3 * time.Second

// targetPoll is how often a waiting targeted fault looks at new records.
const targetPoll = 2 * time.Millisecond

// targeter aims targeted faults for one run (its resolve is the nemesis
// Runner's Resolve hook). It follows every client process's place in the
// lock cycle from the history, incrementally: each look reads only the
// records added since the previous one.
type targeter struct {
	r *run

	mu    sync.Mutex
	seen  int                // records read so far
	procs map[int]*procState // by history process id
	rand  *rand.Rand         // seeded choices among granted nodes
	// keys follows the lock key's writes, to time waiter crashes of
	// process clients to a key without expiry; nil when not needed or
	// not possible (see aimNoExpiry).
	keys *keyEvents
}

// newTargeter starts following lease state; the run's seed makes its
// choices among nodes replayable for the same history.
func newTargeter(r *run) *targeter {
	return &targeter{r: r, procs: map[int]*procState{}, rand: rand.New(rand.NewPCG(uint64(r.cfg.Seed), 0x1ea5e))}
}

// procState is one client process's state, as its own records show it.
type procState struct {
	holds     bool     // acquired, not yet releasing, not told it lost
	holdSince int64    // when its current acquire completed ok (run clock, ns)
	nodes     []string // the nodes that granted its current lease
	waiting   bool     // an acquire invoked and not completed
	waitSince int64    // when that acquire was invoked
}

// update reads the records added since the last look.
func (s *targeter) update() {
	for _, op := range s.r.rec.Since(s.seen) {
		s.seen = int(op.Index) + 1
		if op.IsNemesis() {
			continue
		}
		p := s.procs[op.Process]
		if p == nil {
			p = &procState{}
			s.procs[op.Process] = p
		}
		switch {
		case op.F == history.FAcquire && op.Type == history.Invoke:
			p.waiting, p.waitSince = true, op.Time
		case op.F == history.FAcquire:
			p.waiting = false
			p.holds = op.Type == history.OK
			if p.holds {
				p.holdSince, p.nodes = op.Time, op.Nodes
			}
		case op.F == history.FRelease && op.Type == history.Invoke, op.F == history.FLost:
			p.holds = false
		}
	}
}

// catchUp reads the records added since the last look, unless a fault
// is being aimed (resolve holds the lock and reads them itself). The run
// calls it on each progress tick, so that the targeter keeps up with a
// recorder that keeps only recent records in memory (liveTail).
func (s *targeter) catchUp() {
	if s == nil || !s.mu.TryLock() {
		return
	}
	defer s.mu.Unlock()
	s.update()
}

// holder is a client in its critical section.
type holder struct {
	client string
	since  int64
	nodes  []string
}

// holders returns the clients whose current process holds the lock, the
// latest acquirer first.
func (s *targeter) holders() []holder {
	r := s.r
	var out []holder
	for _, sl := range r.slots {
		if p := s.procs[sl.worker.Process()]; p != nil && p.holds {
			out = append(out, holder{sl.name, p.holdSince, p.nodes})
		}
	}
	slices.SortStableFunc(out, func(a, b holder) int { return int(b.since - a.since) })
	return out
}

// waiter returns the client whose current process has waited longest in
// acquire, while nobody holds the lock (one half-way through taking it);
// with any, also while somebody holds it. On a lock that queues its
// waiters (queued) the waiter is taken while somebody holds the lock, and
// it is the queue's tail: it dies queued and later heads the queue (the
// head could be granted the lock before the kill and die a holder).
func (s *targeter) waiter(any, queued bool) (string, bool) {
	r := s.r
	if held := len(s.holders()) > 0; !any && held != queued {
		return "", false
	}
	var first, last string // the longest and the shortest waiter
	var firstSince, lastSince int64
	for _, sl := range r.slots {
		p := s.procs[sl.worker.Process()]
		if p == nil || !p.waiting {
			continue
		}
		if first == "" || p.waitSince < firstSince {
			first, firstSince = sl.name, p.waitSince
		}
		if last == "" || p.waitSince >= lastSince {
			last, lastSince = sl.name, p.waitSince
		}
	}
	if queued {
		return last, last != ""
	}
	return first, first != ""
}

// freshness is how recent an acquire must be for a fault aimed at the
// holder or its lease to fire on it at once ("right after it acquired");
// after freshWait without such an acquire, any holder will do.
func (s *targeter) freshness() (fresh, freshWait time.Duration) {
	return max(s.r.cfg.TTL/20, 5*time.Millisecond), max(s.r.cfg.TTL, 500*time.Millisecond)
}

// resolve aims a targeted fault when it starts: it replaces
// nemesis.TargetReleaser and TargetRenewal (resolveEvent), TargetHolder and
// TargetWaiter with the client in that state now, and TargetLease with
// enough nodes to break the holder's quorum (leaseNodes); a lease fault
// without a placeholder (a failover) is only timed. It waits for a holder
// that acquired within freshness, after freshWait for any holder. With no
// client in the wanted state by the deadline the fault still happens, on
// the first client and seeded nodes (its record names what it hit).
func (s *targeter) resolve(f nemesis.Fault) nemesis.Fault {
	r := s.r
	if slices.Contains(f.Clients, nemesis.TargetReleaser) {
		s.mu.Lock()
		f = s.resolveEvent(f, nemesis.TargetReleaser, r.releases, "its release began", s.deadline(time.Now()))
		s.mu.Unlock()
	}
	if slices.Contains(f.Clients, nemesis.TargetRenewal) {
		s.mu.Lock()
		f = s.resolveEvent(f, nemesis.TargetRenewal, r.renewals, "an extension of its lease returned ok", s.deadline(time.Now()))
		s.mu.Unlock()
	}
	wantHolder := slices.Contains(f.Clients, nemesis.TargetHolder) || f.Target == nemesis.AimLease ||
		slices.Contains(f.Nodes, nemesis.TargetLease)
	wantWaiter := slices.Contains(f.Clients, nemesis.TargetWaiter)
	if !wantHolder && !wantWaiter {
		return f
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	fresh, freshWait := s.freshness()
	start := time.Now()
	deadline := s.deadline(start)
	if wantWaiter && !wantHolder && s.keys != nil {
		if c, ok := s.aimNoExpiry(start, deadline); ok {
			f.Clients, f.Links = c, nil // the waiter crash takes every one
			return f
		}
	}
	var h *holder
	waiter, found := "", false
	for {
		s.update()
		now, waited, late := r.rec.Now(), time.Since(start), !time.Now().Before(deadline)
		if wantHolder {
			if hs := s.holders(); len(hs) > 0 && (now-hs[0].since <= int64(fresh) || waited >= freshWait || late) {
				h, found = &hs[0], true
			}
		}
		if wantWaiter && !wantHolder {
			waiter, found = s.waiter(waited >= freshWait || late, s.r.cfg.Fair)
		}
		if found || late {
			break
		}
		time.Sleep(targetPoll)
	}
	if wantWaiter && wantHolder {
		waiter, _ = s.waiter(true, false) // beside the holder, when one waits
	}
	fallback := r.slots[0].name
	out := make([]string, 0, len(f.Clients))
	for _, c := range f.Clients {
		switch {
		case c == nemesis.TargetHolder && h != nil:
			c = h.client
		case c == nemesis.TargetWaiter && waiter != "":
			c = waiter
		case c == nemesis.TargetWaiter && wantHolder:
			continue // no waiter beside the holder
		case c == nemesis.TargetHolder, c == nemesis.TargetWaiter:
			c = fallback
		}
		out = append(out, c)
	}
	f.Clients = out
	if i := slices.Index(f.Nodes, nemesis.TargetLease); i >= 0 {
		f.Nodes = slices.Delete(slices.Clone(f.Nodes), i, i+1)
		f.Nodes = append(f.Nodes, s.leaseNodes(h)...)
	}
	if len(f.Clients) > 0 || f.Target == nemesis.AimLease {
		f.Links = nil // recomputed from the clients and nodes
	}
	return f
}

// deadline is when a fault that started waiting at start stops waiting
// for its target: targetWait later, but never later than half a TTL
// before the plan's final heal, so that waiting never pushes a fault (or
// the heal, which the runner does after it) into the recovery phase.
func (s *targeter) deadline(start time.Time) time.Time {
	d := start.Add(targetWait)
	if p := s.r.plan; p != nil && s.r.rec.Start().Add(p.HealAt-s.r.cfg.TTL/2).Before(d) {
		d = s.r.rec.Start().Add(p.HealAt - s.r.cfg.TTL/2)
	}
	return d
}

// leaseNodes picks the nodes a fault aimed at h's lease hits: enough to
// break its quorum even if it holds every node (a quorum lock's late SETs
// still land), nemesis.LeaseBreakers(n, n) = n − (n/2+1) + 1 (2 of 3). The
// nodes that granted it come first, then the others, each group in a
// seeded order; with no holder, any nodes.
func (s *targeter) leaseNodes(h *holder) []string {
	all := s.r.cluster.Nodes()
	var granted []string
	if h != nil {
		granted = s.r.grantedNodes(h.nodes)
	}
	var rest []string
	for _, n := range all {
		if !slices.Contains(granted, n) {
			rest = append(rest, n)
		}
	}
	k := min(nemesis.LeaseBreakers(len(all), len(all)), len(all))
	order := append(s.shuffled(granted), s.shuffled(rest)...)
	out := order[:k]
	slices.SortFunc(out, func(a, b string) int { return slices.Index(all, a) - slices.Index(all, b) })
	return out
}

// shuffled returns xs in an order drawn from the targeter's source.
func (s *targeter) shuffled(xs []string) []string {
	out := make([]string, len(xs))
	for i, j := range s.rand.Perm(len(xs)) {
		out[i] = xs[j]
	}
	return out
}
