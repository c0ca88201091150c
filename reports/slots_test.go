package reports

import (
	"slices"
	"testing"

	"github.com/lockstorm/lockstorm/history"
	"github.com/lockstorm/lockstorm/history/historytest"
	"github.com/lockstorm/lockstorm/nemesis"
)

// A fault that ends clients (client-crash) retires the slots its record
// names in the Clients field, whatever its Detail says; a fault that does
// not end clients (client-pause) retires none, even when it names them.
func TestSlotMapReadsClientsField(t *testing.T) {
	b := historytest.New()
	nem := func(typ history.Type, kind string, clients ...string) {
		b.Append(history.Op{Type: typ, Process: history.NemesisProcess, F: history.FStart, Fault: kind,
			Clients: clients, Detail: kind + " duration=1s"})
	}
	nem(history.Invoke, nemesis.KindClientPause, "c1")
	nem(history.OK, nemesis.KindClientPause, "c1")
	nem(history.Invoke, nemesis.KindClientCrash, "c2")
	nem(history.OK, nemesis.KindClientCrash, "c2") // c2 -> p2
	for _, p := range []int{0, 1, 2} {
		b.Append(history.Op{Type: history.Invoke, Process: p, F: history.FAcquire})
	}
	m := buildSlots(b.History(), 2)
	if want := []string{"c1 (p0)", "c2 (p1, p2)"}; !slices.Equal(m.Rows, want) {
		t.Errorf("rows = %q, want %q", m.Rows, want)
	}
}

// Every registered kind is drawn in the colour it registered, no two
// kinds share one, and none is the red kept for failures.
func TestFaultColoursAreRegistered(t *testing.T) {
	seen := map[[3]uint8]string{}
	for _, s := range nemesis.Specs() {
		c := faultColour(s.Kind)
		if c != s.Colour || c.A != 0xff {
			t.Errorf("%s drawn in %v, registered %v", s.Kind, c, s.Colour)
		}
		key := [3]uint8{c.R, c.G, c.B}
		if other, dup := seen[key]; dup {
			t.Errorf("%s and %s share colour %v", s.Kind, other, c)
		}
		seen[key] = s.Kind
		if c == colFail {
			t.Errorf("%s is drawn in the failure red", s.Kind)
		}
	}
	if len(seen) != len(nemesis.Kinds) {
		t.Errorf("%d colours for %d kinds", len(seen), len(nemesis.Kinds))
	}
}

// A watchdog renews its client's leases under process ids of its own:
// rows are still the clients. With the records' Client field, and for an
// older history without it (placed by the tokens the renewals carry), a
// history of 3 clients whose renewals come from 40 processes has 3 rows.
func TestSlotMapWatchdogRenewalsJoinTheirClient(t *testing.T) {
	for _, withClient := range []bool{true, false} {
		b := historytest.New()
		watchdog := 3
		for round := range 20 {
			for c := range 3 {
				client := ""
				if withClient {
					client = "c" + string(rune('1'+c))
				}
				tok := "t" + string(rune('a'+c)) + string(rune('a'+round))
				b.Append(history.Op{Type: history.Invoke, Process: c, Client: client, F: history.FAcquire, Key: "k"})
				b.Append(history.Op{Type: history.OK, Process: c, Client: client, F: history.FAcquire, Key: "k", Token: tok})
				if c < 2 {
					b.Append(history.Op{Type: history.Invoke, Process: watchdog, Client: client, F: history.FExtend, Key: "k", Token: tok, Detail: "watchdog"})
					b.Append(history.Op{Type: history.Info, Process: watchdog, Client: client, F: history.FExtend, Key: "k", Token: tok, Detail: "watchdog"})
					watchdog++
				}
				b.Append(history.Op{Type: history.Invoke, Process: c, Client: client, F: history.FRelease, Key: "k", Token: tok})
				b.Append(history.Op{Type: history.OK, Process: c, Client: client, F: history.FRelease, Key: "k", Token: tok})
			}
		}
		m := buildSlots(b.History(), 3)
		if len(m.Rows) != 3 {
			t.Fatalf("client field %v: %d rows, want 3: %q", withClient, len(m.Rows), m.Rows)
		}
		if m.Row[3] != 0 || m.Row[4] != 1 || m.Row[watchdog-1] != 1 || m.Row[2] != 2 {
			t.Errorf("client field %v: watchdog processes on rows %d, %d, %d; client 3 on %d", withClient, m.Row[3], m.Row[4], m.Row[watchdog-1], m.Row[2])
		}
	}
}
