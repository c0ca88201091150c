package reports

import (
	"fmt"

	"github.com/lockstorm/lockstorm/history"
)

// slotTracker places each process of a big history in its client slot
// as the records are read, as buildSlots does for a history in memory:
// by the records' Client, else (a history written before records carried
// it) by replaying the harness's retirements of slot processes (an info
// completion, a client-crash). Unlike buildSlots it does not move a
// watchdog's process to its holder's row in an unlabelled history. Memory
// is one entry per process.
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
		if s < t.clients {
			t.slotOf[o.Process] = s
			t.stats[s].add(o.Process)
		}
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

// slotMap is the rows of the big holders chart: one per slot, labelled
// with the slot's processes, then one per process of wh that has no
// slot.
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
