package coverage

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/lockstorm/lockstorm/history"
)

// ComputeFile, streamed over the history's file, gives Compute's report
// on hand-built histories covering each of its rules: a holder at the
// start or during, a waiter and a write, leases ended by a release, a
// lost notice or their validity, a node fault and the lease's nodes, an
// unapplied start, an unhealed window, a history without client slots.
func TestComputeFileEqualsCompute(t *testing.T) {
	cases := map[string]func(b *hb){
		"held then paused": func(b *hb) { b.heldThenPaused(1, "c1") },
		"other client":     func(b *hb) { b.heldThenPaused(2, "c2") },
		"waiter and write during": func(b *hb) {
			b.fault("client-pause", 5, history.OK, []string{"c1"}, nil)
			b.client(10, 1, "c1", history.Invoke, history.FAcquire)
			b.acquired(12, 1, "c1", nil, 0)
			b.client(14, 1, "c1", history.Invoke, history.FWrite)
			b.client(16, 1, "c1", history.OK, history.FWrite)
			b.client(18, 1, "c1", history.Invoke, history.FRelease)
			b.client(19, 1, "c1", history.OK, history.FRelease)
			b.client(20, 1, "c1", history.Invoke, history.FAcquire) // never completes
			b.stop("client-pause", 50)
		},
		"release lost validity": func(b *hb) {
			b.acquired(1, 1, "c1", nil, 0)
			b.client(3, 1, "c1", history.Invoke, history.FRelease)
			b.acquired(4, 2, "c2", nil, 0)
			b.add(history.Op{Time: 6, Process: 2, Client: "c2", Type: history.Info, F: history.FLost, Token: "c2"})
			b.acquired(7, 3, "c1", nil, 9)
			b.fault("client-pause", 8, history.OK, []string{"c1", "c2"}, nil)
			b.stop("client-pause", 12)
		},
		"node faults": func(b *hb) {
			b.client(0, 1, "c1", history.Invoke, history.FAcquire)
			b.acquired(10, 1, "c1", []string{"n1", "n2"}, 0)
			b.fault("crash", 20, history.OK, nil, []string{"n3"})
			b.stop("crash", 30)
			b.fault("crash", 40, history.OK, nil, []string{"n2"})
			b.stop("crash", 50)
		},
		"info start": func(b *hb) {
			b.acquired(10, 1, "c1", nil, 0)
			b.fault("client-pause", 20, history.Info, []string{"c1"}, nil)
			b.stop("client-pause", 50)
		},
		"unhealed": func(b *hb) {
			b.fault("client-pause", 20, history.OK, []string{"c1"}, nil)
			b.client(100, 1, "c1", history.Invoke, history.FAcquire)
			b.acquired(110, 1, "c1", nil, 0)
		},
		"no slots": func(b *hb) {
			b.add(history.Op{Time: 1, Process: 1, Type: history.Invoke, F: history.FAcquire, Key: "k"})
			b.fault("client-pause", 20, history.OK, []string{"c1"}, nil)
			b.stop("client-pause", 50)
		},
		"no faults": func(b *hb) { b.acquired(10, 1, "c1", nil, 0) },
		"invoked again": func(b *hb) { // the first acquire never completes
			b.client(10, 1, "c1", history.Invoke, history.FAcquire)
			b.client(30, 1, "c1", history.Invoke, history.FAcquire)
			b.client(31, 1, "c1", history.Fail, history.FAcquire)
			b.fault("client-pause", 20, history.OK, []string{"c1"}, nil)
			b.stop("client-pause", 25)
		},
	}
	for name, build := range cases {
		t.Run(name, func(t *testing.T) {
			var b hb
			build(&b)
			for _, in := range []Input{in, {Clients: in.Clients, Nodes: in.Nodes, Requested: []string{"crash"}}} {
				assertComputeFile(t, b.h, in)
			}
		})
	}
}

// assertComputeFile writes h to a file and fails unless ComputeFile of
// it gives Compute(h, in), field for field.
func assertComputeFile(t *testing.T, h history.History, in Input) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "history.jsonl")
	if err := history.WriteFile(path, h); err != nil {
		t.Fatal(err)
	}
	got, err := ComputeFile(path, in)
	if err != nil {
		t.Fatal(err)
	}
	want := Compute(h, in)
	g, _ := json.Marshal(got)
	w, _ := json.Marshal(want)
	if string(g) != string(w) {
		t.Fatalf("ComputeFile:\n%s\nCompute:\n%s", g, w)
	}
}
