package reports

import (
	"fmt"
	"slices"
	"strings"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
)

// slotMap assigns each client process of a history to its client slot.
//
// The harness starts slot i as process i and gives a slot a fresh process
// id, the next unused one past the slots, whenever its process retires:
// after an info completion (Jepsen's rule) and when the nemesis ends the
// client's process (a completed start of a kind that registered
// EndsClients, client-crash, whose record names the client in Clients).
// Replaying those retirements in record order recovers which slot each
// replacement id went to. Two slots retiring within the same instant may
// swap ids; the map is a best effort for the picture, not for checking.
//
// A record's Client field ("c2"), when present, places its process
// directly; the replay only serves histories written before records
// carried it. A process that never acquires but uses tokens another
// process acquired (a watchdog renewing its client's leases under an id
// of its own) joins that process's row: rows are clients, not processes.
//
// With clients <= 0, or for a process none of this can place, the row is
// the process itself.
type slotMap struct {
	// Rows are the row labels, bottom to top: "c1 (p0, p4)", or "p7".
	Rows []string
	// Row maps a process id to its row index.
	Row map[int]int
}

// buildSlots replays h's retirements for a run of clients slots.
func buildSlots(h history.History, clients int) slotMap {
	labelled := map[int]int{} // process -> slot, from the records' Client
	for i := range h {
		if r := &h[i]; !r.IsNemesis() && r.Client != "" {
			if s := slotIndex(r.Client); s >= 0 {
				labelled[r.Process] = s
				clients = max(clients, s+1)
			}
		}
	}
	owner := tokenFollowers(h, labelled)
	slotOf, order := replaySlots(h, max(clients, 0), labelled, owner)
	for p, s := range labelled {
		slotOf[p] = s
	}
	for p, o := range owner {
		if s, ok := slotOf[o]; ok {
			slotOf[p] = s
		}
	}
	return slotRows(order, slotOf, max(clients, 0))
}

// replaySlots replays h's retirements of slot processes for a run of
// clients slots (the processes labelled by their records' Client, and
// those following another's tokens, retire none): it returns each
// process's slot, and the processes in order of first appearance.
func replaySlots(h history.History, clients int, labelled, owner map[int]int) (slotOf map[int]int, order []int) {
	slotOf = map[int]int{}      // process -> slot
	cur := make([]int, clients) // slot -> current process
	for i := range cur {
		slotOf[i], cur[i] = i, i
	}
	next := clients
	retire := func(slot int) {
		cur[slot] = next
		slotOf[next] = slot
		next++
	}
	seen := map[int]bool{}
	for i := range h {
		r := &h[i]
		if r.IsNemesis() {
			if clients > 0 && r.F == history.FStart && r.Type != history.Invoke && endsClients(r.Fault) {
				for _, c := range faultClients(r) {
					var n int
					if _, err := fmt.Sscanf(c, "c%d", &n); err == nil && n >= 1 && n <= clients {
						retire(n - 1)
					}
				}
			}
			continue
		}
		if !seen[r.Process] {
			seen[r.Process] = true
			order = append(order, r.Process)
		}
		if _, follows := owner[r.Process]; follows {
			continue // a watchdog's info retires no slot
		}
		if _, ok := labelled[r.Process]; ok {
			continue
		}
		if r.Type == history.Info && clients > 0 && r.F != history.FLost {
			if s, ok := slotOf[r.Process]; ok && cur[s] == r.Process {
				retire(s)
			}
		}
	}
	return slotOf, order
}

// slotRows lays the processes (order) out on rows: one per slot of
// clients, labelled with its processes, then one per process in none.
func slotRows(order []int, slotOf map[int]int, clients int) slotMap {
	m := slotMap{Row: map[int]int{}}
	procs := make([][]int, clients)
	for _, p := range order {
		if s, ok := slotOf[p]; ok {
			procs[s] = append(procs[s], p)
		}
	}
	for s, ps := range procs {
		slices.Sort(ps)
		for _, p := range ps {
			m.Row[p] = s
		}
		m.Rows = append(m.Rows, slotLabel(s, ps))
	}
	var loose []int
	for _, p := range order {
		if _, ok := m.Row[p]; !ok {
			loose = append(loose, p)
		}
	}
	slices.Sort(loose)
	for _, p := range loose {
		m.Row[p] = len(m.Rows)
		m.Rows = append(m.Rows, fmt.Sprintf("p%d", p))
	}
	return m
}

// slotIndex is the slot of a record's Client ("c3" -> 2), -1 when it
// names none (empty, or not c1..c4096).
func slotIndex(client string) int {
	if len(client) < 2 || client[0] != 'c' {
		return -1
	}
	n := 0
	for i := 1; i < len(client); i++ {
		c := client[i]
		if c < '0' || c > '9' {
			return -1
		}
		if n = n*10 + int(c-'0'); n > 4096 {
			return -1
		}
	}
	return n - 1
}

// tokenFollowers maps each unlabelled process that never invokes an
// acquire but records a token another process acquired to that process.
func tokenFollowers(h history.History, labelled map[int]int) map[int]int {
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
		if _, ok := labelled[r.Process]; ok || r.IsNemesis() || acquires[r.Process] || r.Token == "" {
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

// slotLabel is "c2 (p1, p5)"; long process lists are shortened.
func slotLabel(slot int, procs []int) string {
	var ps []string
	for i, p := range procs {
		if i == 3 && len(procs) > 4 {
			ps = append(ps, fmt.Sprintf("… +%d", len(procs)-3))
			break
		}
		ps = append(ps, fmt.Sprintf("p%d", p))
	}
	if len(ps) == 0 {
		return fmt.Sprintf("c%d", slot+1)
	}
	return fmt.Sprintf("c%d (%s)", slot+1, strings.Join(ps, ", "))
}

// endsClients reports whether a completed start of the fault kind ends
// the processes of the clients it names (nemesis.Spec.EndsClients).
func endsClients(kind string) bool {
	s, ok := nemesis.Lookup(kind)
	return ok && s.EndsClients
}

// faultClients returns the clients a nemesis record names: its Clients
// field, or, for a history written before records carried it (before
// lockstorm recorded client slots), the "clients=c1,c2" of its Detail.
func faultClients(r *history.Op) []string {
	if len(r.Clients) > 0 {
		return r.Clients
	}
	return detailClients(r.Detail)
}

// detailClients returns the clients a fault Detail names ("clients=c1,c2"):
// the only place old histories kept them.
func detailClients(detail string) []string {
	for _, f := range strings.Fields(detail) {
		if v, ok := strings.CutPrefix(f, "clients="); ok {
			return strings.Split(v, ",")
		}
	}
	return nil
}
