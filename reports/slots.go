package reports

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
)

// slotMap assigns each client process of a history to its client slot's
// row (slotTracker); an unplaced process is a row of its own.
type slotMap struct {
	// Rows are the row labels, bottom to top: "c1 (p0, p4)", or "p7".
	Rows []string
	// Row maps a process id to its row index.
	Row map[int]int
}

// slotIndex is the slot of a record's Client ("c3" -> 2), -1 when it
// names none (empty, or not c1..c4096).
func slotIndex(client string) int {
	if len(client) < 2 || client[0] != 'c' || client[1] < '0' || client[1] > '9' {
		return -1
	}
	if n, err := strconv.Atoi(client[1:]); err == nil && n <= 4096 {
		return n - 1
	}
	return -1
}

// tokenFollowers maps each process of h that never invokes an acquire
// but records a token another process acquired to that process.
func tokenFollowers(h history.History) map[int]int {
	acquirer := map[string]int{} // token -> process of its acquire ok
	acquires := map[int]bool{}
	for i := range h {
		r := &h[i]
		if r.IsNemesis() || r.F != history.FAcquire {
			continue
		}
		acquires[r.Process] = true
		if r.Type == history.OK && r.Token != "" {
			acquirer[r.Token] = r.Process
		}
	}
	out := map[int]int{}
	for i := range h {
		r := &h[i]
		if r.IsNemesis() || acquires[r.Process] || r.Token == "" {
			continue
		}
		if o, ok := acquirer[r.Token]; ok && o != r.Process {
			if _, done := out[r.Process]; !done {
				out[r.Process] = o
			}
		}
	}
	return out
}

// faultClients are the clients a nemesis record names: Clients, or in
// older histories its Detail's "clients=c1,c2".
func faultClients(r *history.Op) []string {
	if len(r.Clients) > 0 {
		return r.Clients
	}
	for _, f := range strings.Fields(r.Detail) {
		if v, ok := strings.CutPrefix(f, "clients="); ok {
			return strings.Split(v, ",")
		}
	}
	return nil
}

// slotTracker places each process in its client slot: by the records'
// Client, else replaying the harness: slot i starts as process i and takes
// the next id after an info or a completed client-crash naming it.
type slotTracker struct {
	clients int
	slotOf  map[int]int // process -> slot
	cur     []int       // slot -> its current process (replay)
	next    int
	stats   []slotStat // per slot, for the row labels
	seen    map[int]bool
}

func newSlotTracker(clients int) *slotTracker {
	t := &slotTracker{clients: clients, slotOf: map[int]int{}, cur: make([]int, clients), next: clients, stats: make([]slotStat, clients), seen: map[int]bool{}}
	for i := range clients {
		t.slotOf[i], t.cur[i] = i, i
	}
	return t
}

// add follows one record.
func (t *slotTracker) add(o *history.Op) {
	if o.IsNemesis() {
		// a completed start of a fault that ends the processes of the clients it names
		if s, ok := nemesis.Lookup(o.Fault); ok && s.EndsClients && o.F == history.FStart && o.Type != history.Invoke {
			for _, c := range faultClients(o) {
				if n := slotIndex(c); n >= 0 && n < t.clients {
					t.retire(n)
				}
			}
		}
		return
	}
	if s := slotIndex(o.Client); s >= 0 {
		for t.clients <= s { // a slot beyond the run's client count
			t.cur, t.stats = append(t.cur, -1), append(t.stats, slotStat{})
			t.clients++
		}
		t.slotOf[o.Process] = s
		t.count(s, o.Process)
		return
	}
	s, ok := t.slotOf[o.Process]
	if !ok {
		return
	}
	t.count(s, o.Process)
	if o.Type == history.Info && o.F != history.FLost && t.cur[s] == o.Process {
		t.retire(s)
	}
}

// count counts process p in slot s's label, once.
func (t *slotTracker) count(s, p int) {
	if !t.seen[p] {
		t.seen[p] = true
		t.stats[s].add(p)
	}
}

// retire gives slot s the next process id.
func (t *slotTracker) retire(s int) {
	t.cur[s] = t.next
	t.slotOf[t.next] = s
	t.next++
}

// slot is process p's slot, false when it has none.
func (t *slotTracker) slot(p int) (int, bool) {
	s, ok := t.slotOf[p]
	return s, ok
}

// slotMap is kept's rows: one per slot, then one per process without a
// slot by id, unless it follows another's tokens (a watchdog).
func (t *slotTracker) slotMap(kept history.History) slotMap {
	m := slotMap{Row: map[int]int{}}
	for s := range t.clients {
		m.Rows = append(m.Rows, t.stats[s].label(s))
	}
	var loose []int
	var owner map[int]int
	for i := range kept {
		o := &kept[i]
		if _, done := m.Row[o.Process]; done || o.IsNemesis() {
			continue
		}
		s, ok := t.slot(o.Process)
		if !ok {
			if owner == nil {
				owner = tokenFollowers(kept)
			}
			s, ok = t.slot(owner[o.Process])
			_, follows := owner[o.Process]
			ok = ok && follows
		}
		if ok {
			m.Row[o.Process] = s
			continue
		}
		m.Row[o.Process] = -1
		loose = append(loose, o.Process)
	}
	slices.Sort(loose)
	for _, p := range loose {
		m.Row[p] = len(m.Rows)
		m.Rows = append(m.Rows, fmt.Sprintf("p%d", p))
	}
	return m
}

// slotStat is what the pass learns of a client slot's processes for its
// row label: the four smallest ids, and how many.
type slotStat struct {
	first []int
	n     int
}

// add counts process p of the slot, once.
func (s *slotStat) add(p int) {
	s.n++
	i, _ := slices.BinarySearch(s.first, p)
	if i < 4 {
		s.first = slices.Insert(s.first, i, p)[:min(len(s.first)+1, 4)]
	}
}

// label is the slot's row label: "c2 (p1, p5)", past four processes
// "c2 (p1, p5, p9, … +2)", "c2" with none.
func (s *slotStat) label(slot int) string {
	var ps []string
	for i, p := range s.first {
		if i == 3 && s.n > 4 {
			ps = append(ps, fmt.Sprintf("… +%d", s.n-3))
			break
		}
		ps = append(ps, fmt.Sprintf("p%d", p))
	}
	if len(ps) == 0 {
		return fmt.Sprintf("c%d", slot+1)
	}
	return fmt.Sprintf("c%d (%s)", slot+1, strings.Join(ps, ", "))
}
