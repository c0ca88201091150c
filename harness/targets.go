package harness

import (
	"math/rand/v2"
	"slices"
	"sync"
	"time"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
)

// A targeted fault waits at most targetWait for a client in the wanted
// state, looking at new records every targetPoll.
const targetWait, targetPoll = 3 * time.Second, 2 * time.Millisecond

// targeter aims a run's targeted faults (resolve is the nemesis Runner's
// Resolve hook), following each client process's place in the lock cycle
// from the records added since its previous look.
type targeter struct {
	r *run

	mu    sync.Mutex
	seen  int                // records read so far
	procs map[int]*procState // by history process id
	rand  *rand.Rand         // seeded choices among granted nodes
	keys  *keyEvents         // the lock key's writes, for aimNoExpiry; nil without
}

// newTargeter starts following lease state, its choices among nodes
// seeded by the run's seed.
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

// catchUp reads the records added since the last look, unless resolve is
// reading them: on each progress tick, to keep up with a recorder that
// keeps only the live tail in memory.
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
	var out []holder
	for _, sl := range s.r.slots {
		if p := s.procs[sl.worker.Process()]; p != nil && p.holds {
			out = append(out, holder{sl.name, p.holdSince, p.nodes})
		}
	}
	slices.SortStableFunc(out, func(a, b holder) int { return int(b.since - a.since) })
	return out
}

// waiter returns the client that has waited longest in acquire while
// nobody holds the lock (with any, also while somebody does); on a lock
// that queues its waiters (queued), the queue's tail while somebody holds
// it, so that it dies queued rather than granted before the kill.
func (s *targeter) waiter(any, queued bool) (string, bool) {
	if held := len(s.holders()) > 0; !any && held != queued {
		return "", false
	}
	var first, last string // the longest and the shortest waiter
	var firstSince, lastSince int64
	for _, sl := range s.r.slots {
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
// holder to fire on it at once; after freshWait any holder will do.
func (s *targeter) freshness() (fresh, freshWait time.Duration) {
	return max(s.r.cfg.TTL/20, 5*time.Millisecond), max(s.r.cfg.TTL, 500*time.Millisecond)
}

// resolve aims a targeted fault when it starts: TargetReleaser and
// TargetRenewal become the client of that event (resolveEvent),
// TargetHolder and TargetWaiter the client in that state (a holder fresh
// by freshness), TargetLease enough nodes to break the holder's quorum
// (leaseNodes); a lease fault without a placeholder is only timed. With
// no such client by the deadline, it hits the first client.
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

// deadline is when a fault that began waiting at start stops: targetWait
// later, but at least half a TTL before the final heal, which waiting
// must not push into the recovery phase.
func (s *targeter) deadline(start time.Time) time.Time {
	d := start.Add(targetWait)
	if p := s.r.plan; p != nil && s.r.rec.Start().Add(p.HealAt-s.r.cfg.TTL/2).Before(d) {
		d = s.r.rec.Start().Add(p.HealAt - s.r.cfg.TTL/2)
	}
	return d
}

// leaseNodes picks the nodes a fault aimed at h's lease hits: enough to
// break its quorum even if it holds every node (LeaseBreakers(n, n), 2 of
// 3), those that granted it first, each group in a seeded order.
func (s *targeter) leaseNodes(h *holder) []string {
	all := s.r.cluster.Nodes()
	var granted []string
	if h != nil {
		granted = s.r.grantedNodes(h.nodes)
	}
	rest := slices.DeleteFunc(slices.Clone(all), func(n string) bool { return slices.Contains(granted, n) })
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
