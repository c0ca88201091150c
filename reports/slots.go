package reports

import (
	"strconv"
	"strings"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/nemesis"
)

// slotMap assigns each client process of a history to its client slot:
// by the records' Client field ("c2"), else (older histories) by
// replaying the harness's retirements (slotTracker), a best effort for the
// picture. A watchdog process joins the row of the process whose tokens
// it uses; a process none of this places is a row of its own.
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
	for _, f := range strings.Fields(r.Detail) {
		if v, ok := strings.CutPrefix(f, "clients="); ok {
			return strings.Split(v, ",")
		}
	}
	return nil
}
