package reports

import (
	"fmt"

	"github.com/lockstorm/lockstorm/history"
)

// slotTracker places each process of a history in its client slot as
// the pass reads the records (scanRun), as buildSlots does for a history
// in memory:
// by the records' Client, else (a history written before records carried
// it) by replaying the harness's retirements of slot processes (an info
// completion, a client-crash). Unlike buildSlots it does not move a
// watchdog's process to its holder's row in an unlabelled history. Memory
// is one entry per process. Slots named by records beyond the run's
// client count are added as they appear.
type slotTracker struct {
	clients int
	slotOf  map[int]int // process -> slot
	cur     []int       // slot -> its current process (replay)
	next    int
	stats   []slotStat // per slot, for the row labels
}

func newSlotTracker(clients int) *slotTracker {
	t := &slotTracker{clients: clients, slotOf: map[int]int{}, cur: make([]int, clients), next: clients, stats: make([]slotStat, clients)}
	for i := range clients {
		t.slotOf[i], t.cur[i] = i, i
	}
	return t
}

// add follows one record.
func (t *slotTracker) add(o *history.Op) {
	if o.IsNemesis() {
		if o.F == history.FStart && o.Type != history.Invoke && endsClients(o.Fault) {
			for _, c := range faultClients(o) {
				var n int
				if _, err := fmt.Sscanf(c, "c%d", &n); err == nil && n >= 1 && n <= t.clients {
					t.retire(n - 1)
				}
			}
		}
		return
	}
	if s := slotIndex(o.Client); s >= 0 {
		t.grow(s + 1)
		t.slotOf[o.Process] = s
		t.stats[s].add(o.Process)
		return
	}
	s, ok := t.slotOf[o.Process]
	if !ok {
		return
	}
	t.stats[s].add(o.Process)
	if o.Type == history.Info && o.F != history.FLost && t.cur[s] == o.Process {
		t.retire(s)
	}
}

// grow makes room for n slots.
func (t *slotTracker) grow(n int) {
	for t.clients < n {
		t.cur = append(t.cur, -1)
		t.stats = append(t.stats, slotStat{})
		t.clients++
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

// slotMap is the rows of the holders chart of a history too long to keep
// (its windows wh): one per slot, labelled with the slot's processes,
// then one per process of wh that has no slot.
func (t *slotTracker) slotMap(wh history.History) slotMap {
	m := slotMap{Row: map[int]int{}}
	for s := range t.clients {
		if t.stats[s].n == 0 {
			m.Rows = append(m.Rows, fmt.Sprintf("c%d", s+1))
		} else {
			m.Rows = append(m.Rows, t.stats[s].label(s))
		}
	}
	for i := range wh {
		o := &wh[i]
		if o.IsNemesis() {
			continue
		}
		if _, done := m.Row[o.Process]; done {
			continue
		}
		if s, ok := t.slot(o.Process); ok {
			m.Row[o.Process] = s
			continue
		}
		m.Row[o.Process] = len(m.Rows)
		m.Rows = append(m.Rows, fmt.Sprintf("p%d", o.Process))
	}
	return m
}

// slotStat is what the pass learns of a client slot's processes for its
// row label: the first few, and how many (counted as the slot's process
// id grows: the harness gives a slot ever larger ids).
type slotStat struct {
	first []int
	n     int
	top   int
}

// add counts process p of the slot.
func (s *slotStat) add(p int) {
	if s.n > 0 && p <= s.top {
		return
	}
	s.n++
	s.top = p
	if len(s.first) < 3 {
		s.first = append(s.first, p)
	}
}

// label is the slot's row label, as slotLabel writes it.
func (s *slotStat) label(slot int) string {
	if s.n <= 4 {
		return slotLabel(slot, s.first[:min(len(s.first), s.n)])
	}
	l := slotLabel(slot, s.first)
	return l[:len(l)-1] + fmt.Sprintf(", … +%d)", s.n-3)
}
